#include "EditDistance.h"

#include <QString>

#include <algorithm>
#include <vector>

namespace steward {

int editDistance(const std::string &aText, const std::string &bText, int limit)
{
    const std::u32string a = QString::fromStdString(aText).toStdU32String();
    const std::u32string b = QString::fromStdString(bText).toStdU32String();
    if (static_cast<int>(std::max(a.size(), b.size()) - std::min(a.size(), b.size())) > limit)
        return limit + 1;
    std::vector<int> previous(b.size() + 1);
    std::vector<int> current(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        previous[j] = static_cast<int>(j);
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = static_cast<int>(i);
        int rowMinimum = current[0];
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const int substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
            rowMinimum = std::min(rowMinimum, current[j]);
        }
        if (rowMinimum > limit)
            return limit + 1;
        std::swap(previous, current);
    }
    return std::min(previous[b.size()], limit + 1);
}

} // namespace steward
