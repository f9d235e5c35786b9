#include "Text.h"

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

} // namespace steward
