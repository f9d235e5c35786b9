#include "Clock.h"

#include <atomic>

namespace steward {

namespace {

std::atomic<std::int64_t> g_shiftSeconds{0};

} // namespace

QDateTime engineNow()
{
    return QDateTime::currentDateTimeUtc().addSecs(g_shiftSeconds.load(std::memory_order_relaxed));
}

std::string engineNowText()
{
    return engineNow().toString(Qt::ISODate).toStdString();
}

void setEngineClockShift(std::chrono::seconds shift)
{
    g_shiftSeconds.store(shift.count(), std::memory_order_relaxed);
}

std::chrono::seconds engineClockShift()
{
    return std::chrono::seconds(g_shiftSeconds.load(std::memory_order_relaxed));
}

} // namespace steward
