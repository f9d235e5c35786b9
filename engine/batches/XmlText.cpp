#include "XmlText.h"

namespace steward {

namespace {

bool isXmlSpace(QChar c)
{
    return c == QLatin1Char(' ') || c == QLatin1Char('\t') || c == QLatin1Char('\n') ||
           c == QLatin1Char('\r');
}

bool isLeapYear(int year)
{
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
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

bool isIsoDate(const std::string &text)
{
    if (text.size() != 10 || text[4] != '-' || text[7] != '-')
        return false;
    for (std::size_t i = 0; i < text.size(); ++i)
        if (i != 4 && i != 7 && (text[i] < '0' || text[i] > '9'))
            return false;
    const int year = std::stoi(text.substr(0, 4));
    const int month = std::stoi(text.substr(5, 2));
    const int day = std::stoi(text.substr(8, 2));
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12 || day < 1)
        return false;
    return day <= days[month - 1] + (month == 2 && isLeapYear(year) ? 1 : 0);
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
