#pragma once

#include <QSyntaxHighlighter>
#include <QTextCharFormat>

// Colours JSON text: member names, string values, numbers, true/false/null and punctuation. One
// position can be marked as a parse error (a red wavy underline from there to the end of the line).
class JsonHighlighter : public QSyntaxHighlighter
{
    Q_OBJECT

public:
    explicit JsonHighlighter(QTextDocument *document);

    // 1-based line and column (in characters); line 0 clears the mark.
    void setErrorPosition(int line, int column);
    int errorLine() const { return m_errorLine; }

protected:
    void highlightBlock(const QString &text) override;

private:
    QTextCharFormat m_key;
    QTextCharFormat m_string;
    QTextCharFormat m_number;
    QTextCharFormat m_keyword;
    QTextCharFormat m_punctuation;
    int m_errorLine = 0;
    int m_errorColumn = 0;
};
