#include "JsonHighlighter.h"

#include <QColor>
#include <QTextBlock>
#include <QTextDocument>

#include <algorithm>

JsonHighlighter::JsonHighlighter(QTextDocument *document)
    : QSyntaxHighlighter(document)
{
    m_key.setForeground(QColor(0x1f, 0x4e, 0x9a));
    m_string.setForeground(QColor(0x2e, 0x7d, 0x32));
    m_number.setForeground(QColor(0xb3, 0x5a, 0x00));
    m_keyword.setForeground(QColor(0x8e, 0x24, 0xaa));
    m_keyword.setFontWeight(QFont::DemiBold);
    m_punctuation.setForeground(QColor(0x75, 0x75, 0x75));
}

void JsonHighlighter::setErrorPosition(int line, int column)
{
    if (line == m_errorLine && column == m_errorColumn)
        return;
    const int previous = m_errorLine;
    m_errorLine = line;
    m_errorColumn = column;
    // Only the lines that gain or lose the mark need colouring again.
    for (int l : {previous, line}) {
        if (l <= 0)
            continue;
        const QTextBlock block = document()->findBlockByNumber(l - 1);
        if (block.isValid())
            rehighlightBlock(block);
    }
}

namespace {

bool isNumberStart(QChar c)
{
    return c.isDigit() || c == u'-';
}

bool isNumberChar(QChar c)
{
    return c.isDigit() || c == u'-' || c == u'+' || c == u'.' || c == u'e' || c == u'E';
}

} // namespace

void JsonHighlighter::highlightBlock(const QString &text)
{
    const int length = static_cast<int>(text.size());
    int i = 0;
    while (i < length) {
        const QChar c = text.at(i);
        if (c == u'"') {
            int end = i + 1;
            while (end < length && text.at(end) != u'"') {
                if (text.at(end) == u'\\')
                    ++end;
                ++end;
            }
            end = std::min(end + 1, length);
            // A string followed by a colon is a member name.
            int next = end;
            while (next < length && text.at(next).isSpace())
                ++next;
            const bool isKey = next < length && text.at(next) == u':';
            setFormat(i, end - i, isKey ? m_key : m_string);
            i = end;
        } else if (isNumberStart(c)) {
            int end = i + 1;
            while (end < length && isNumberChar(text.at(end)))
                ++end;
            setFormat(i, end - i, m_number);
            i = end;
        } else if (c.isLetter()) {
            int end = i + 1;
            while (end < length && text.at(end).isLetter())
                ++end;
            const QStringView word = QStringView(text).mid(i, end - i);
            if (word == u"true" || word == u"false" || word == u"null")
                setFormat(i, end - i, m_keyword);
            i = end;
        } else {
            if (c == u'{' || c == u'}' || c == u'[' || c == u']' || c == u':' || c == u',')
                setFormat(i, 1, m_punctuation);
            ++i;
        }
    }

    if (m_errorLine > 0 && currentBlock().blockNumber() == m_errorLine - 1) {
        const int start = std::clamp(m_errorColumn - 1, 0, std::max(0, length - 1));
        const int count = std::max(1, length - start);
        for (int p = start; p < start + count && p < std::max(length, 1); ++p) {
            QTextCharFormat f = format(p);
            f.setUnderlineStyle(QTextCharFormat::WaveUnderline);
            f.setUnderlineColor(QColor(0xd3, 0x2f, 0x2f));
            f.setBackground(QColor(0xff, 0xeb, 0xee));
            setFormat(p, 1, f);
        }
    }
}
