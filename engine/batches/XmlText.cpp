#include "XmlText.h"

namespace steward {

namespace {

bool isXmlSpace(QChar c)
{
    return c == QLatin1Char(' ') || c == QLatin1Char('\t') || c == QLatin1Char('\n') ||
           c == QLatin1Char('\r');
}

} // namespace

QString trimXmlSpace(const QString &text)
{
    qsizetype begin = 0;
    qsizetype end = text.size();
    while (begin < end && isXmlSpace(text[begin]))
        ++begin;
    while (end > begin && isXmlSpace(text[end - 1]))
        --end;
    return text.mid(begin, end - begin);
}

std::string quoted(const std::string &value)
{
    constexpr std::size_t kMaxShown = 60;
    if (value.size() <= kMaxShown)
        return "'" + value + "'";
    // Cut before a UTF-8 continuation byte never splits a character (a split one made the
    // message invalid UTF-8, which the draft and report writers cannot store).
    std::size_t cut = kMaxShown;
    while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xc0) == 0x80)
        --cut;
    return "'" + value.substr(0, cut) + "...'";
}

} // namespace steward
