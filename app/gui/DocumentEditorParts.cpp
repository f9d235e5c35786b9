#include "DocumentEditorParts.h"

#include <QKeyEvent>
#include <QPainter>
#include <QRegularExpression>

#include <algorithm>
#include <cctype>

namespace editorparts {

void ElidedLabel::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    const QString shown = fontMetrics().elidedText(text(), Qt::ElideRight, contentsRect().width());
    setToolTip(shown == text() ? QString() : text());
    style()->drawItemText(&painter, contentsRect(), static_cast<int>(alignment()), palette(), isEnabled(), shown,
                          foregroundRole());
}

std::optional<Json> parseText(const QString &text, ParseProblem &problem)
{
    problem = ParseProblem{};
    const QByteArray utf8 = text.toUtf8();
    try {
        return Json::parse(utf8.constBegin(), utf8.constEnd());
    } catch (const Json::parse_error &e) {
        // nlohmann names the last character it read: the end of the offending token, or the
        // character after it. People look for the token's start.
        qsizetype offset = std::clamp<qsizetype>(static_cast<qsizetype>(e.byte) - 1, 0, utf8.size());
        if (offset < utf8.size()) {
            auto isWordChar = [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+';
            };
            while (offset > 0 && std::isspace(static_cast<unsigned char>(utf8[offset])))
                --offset;
            if (utf8[offset] == '"') {
                qsizetype open = offset - 1;
                while (open >= 0 && !(utf8[open] == '"' && (open == 0 || utf8[open - 1] != '\\')))
                    --open;
                if (open >= 0)
                    offset = open;
            } else if (isWordChar(utf8[offset])) {
                while (offset > 0 && isWordChar(utf8[offset - 1]))
                    --offset;
            }
        }
        const QByteArray before = utf8.left(offset);
        problem.line = static_cast<int>(before.count('\n')) + 1;
        const qsizetype lineStart = before.lastIndexOf('\n') + 1;
        problem.column = static_cast<int>(QString::fromUtf8(before.mid(lineStart)).size()) + 1;
        QString message = QString::fromUtf8(e.what());
        message.remove(QRegularExpression(QStringLiteral("^\\[json\\.exception\\.[a-z_]+\\.\\d+\\] ")));
        message.remove(QRegularExpression(QStringLiteral("^parse error( at line \\d+, column \\d+)?: ")));
        problem.message = message;
    } catch (const std::exception &e) {
        problem.line = 1;
        problem.column = 1;
        problem.message = QString::fromUtf8(e.what());
    }
    return std::nullopt;
}

SnapshotCommand::SnapshotCommand(Apply apply, QString before, QString after, QString mergeKey, Origin origin, const QString &label)
    : QUndoCommand(label)
    , m_apply(std::move(apply))
    , m_before(std::move(before))
    , m_after(std::move(after))
    , m_mergeKey(std::move(mergeKey))
    , m_origin(origin)
{
}

bool SnapshotCommand::mergeWith(const QUndoCommand *other)
{
    const auto *next = static_cast<const SnapshotCommand *>(other);
    if (next->m_mergeKey != m_mergeKey)
        return false;
    m_after = next->m_after;
    setObsolete(m_after == m_before);
    return true;
}

void SnapshotCommand::redo()
{
    // The first time, the view the edit came from already shows it.
    const Origin origin = m_first ? m_origin : Origin::None;
    m_first = false;
    m_apply(m_after, origin);
}

EditorKeyFilter::EditorKeyFilter(Handler handler, QObject *parent)
    : QObject(parent)
    , m_handler(std::move(handler))
{
}

bool EditorKeyFilter::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::ShortcutOverride || event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<const QKeyEvent *>(event);
        if (m_handler(key, event->type() == QEvent::KeyPress)) {
            event->accept();
            return true;
        }
    }
    return QObject::eventFilter(watched, event);
}

QString jsonText(const Json &value)
{
    return QString::fromStdString(value.is_string() ? value.get<std::string>() : value.dump());
}

} // namespace editorparts
