#pragma once

#include <QMessageBox>
#include <QString>

class QWidget;

// Questions and notices to the user go through here so tests can answer them in advance
// (like KeePassXC's MessageBox::setNextAnswer) instead of a modal box blocking the run.
class Prompt
{
public:
    static QMessageBox::StandardButton ask(QWidget *parent, const QString &title, const QString &text,
                                           QMessageBox::StandardButtons buttons,
                                           QMessageBox::StandardButton defaultButton);
    static void inform(QWidget *parent, const QString &title, const QString &text);

    static void setNextAnswer(QMessageBox::StandardButton answer);
    static QString lastText();

private:
    static QMessageBox::StandardButton s_nextAnswer;
    static QString s_lastText;
};
