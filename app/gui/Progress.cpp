#include "Progress.h"

#include <QCoreApplication>

QString timeLeftText(qint64 elapsedMs, int done, int total)
{
    // Below a second's work or a hundredth of it done, the pace says little yet.
    if (done <= 0 || total <= done || elapsedMs < 1000 || done * 100LL < total)
        return {};
    const qint64 leftSeconds = (elapsedMs * (total - done) / done + 999) / 1000;
    if (leftSeconds < 90)
        return QCoreApplication::translate("Progress", "about %1 s left").arg(leftSeconds);
    return QCoreApplication::translate("Progress", "about %1 min left").arg((leftSeconds + 30) / 60);
}
