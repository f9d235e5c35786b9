#include "Text.h"

#include <QCryptographicHash>

namespace steward {

void lowerAsciiInPlace(std::string &text)
{
    for (char &c : text)
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
}

std::string lowerAscii(std::string_view text)
{
    std::string out(text);
    lowerAsciiInPlace(out);
    return out;
}

std::string sha256Hex(std::string_view bytes)
{
    return QCryptographicHash::hash(QByteArrayView(bytes.data(), static_cast<qsizetype>(bytes.size())),
                                    QCryptographicHash::Sha256)
        .toHex()
        .toStdString();
}

void appendLowerHex(std::string &out, const void *bytes, std::size_t size)
{
    static constexpr char kHex[] = "0123456789abcdef";
    const auto *in = static_cast<const unsigned char *>(bytes);
    const std::size_t start = out.size();
    out.resize(start + 2 * size);
    char *next = out.data() + start;
    for (std::size_t i = 0; i < size; ++i) {
        *next++ = kHex[in[i] >> 4];
        *next++ = kHex[in[i] & 0xf];
    }
}

int decimalDigitsAt(std::string_view text, std::size_t at, std::size_t count)
{
    int value = 0;
    for (std::size_t i = at; i < at + count; ++i) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

bool isCalendarDay(int year, int month, int day)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12 || day < 1)
        return false;
    const bool leapYear = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return day <= days[month - 1] + (month == 2 && leapYear ? 1 : 0);
}

bool isIsoDate(std::string_view text)
{
    if (text.size() != 10 || text[4] != '-' || text[7] != '-')
        return false;
    const int year = decimalDigitsAt(text, 0, 4);
    const int month = decimalDigitsAt(text, 5, 2);
    const int day = decimalDigitsAt(text, 8, 2);
    return year >= 0 && month >= 0 && day >= 0 && isCalendarDay(year, month, day);
}

} // namespace steward
