#include "Prompt.h"

QMessageBox::StandardButton Prompt::s_nextAnswer = QMessageBox::NoButton;
QString Prompt::s_lastText;

QMessageBox::StandardButton Prompt::ask(QWidget *parent, const QString &title, const QString &text,
                                        QMessageBox::StandardButtons buttons,
                                        QMessageBox::StandardButton defaultButton)
{
    s_lastText = text;
    if (s_nextAnswer != QMessageBox::NoButton) {
        const QMessageBox::StandardButton answer = s_nextAnswer;
        s_nextAnswer = QMessageBox::NoButton;
        return answer;
    }
    return QMessageBox::question(parent, title, text, buttons, defaultButton);
}

void Prompt::inform(QWidget *parent, const QString &title, const QString &text)
{
    s_lastText = text;
    if (s_nextAnswer != QMessageBox::NoButton) {
        s_nextAnswer = QMessageBox::NoButton;
        return;
    }
    QMessageBox::warning(parent, title, text);
}

void Prompt::setNextAnswer(QMessageBox::StandardButton answer)
{
    s_nextAnswer = answer;
}

QString Prompt::lastText()
{
    return s_lastText;
}
