#pragma once

#include <QString>

#include <string>

namespace steward {

// Text helpers shared by the interchange XML readers (DescriptorXml, InterchangeXml).

// XML whitespace only: QString::trimmed would also strip no-break spaces, which are data.
QString trimXmlSpace(const QString &text);

// A value quoted for a message, cut after 60 characters.
std::string quoted(const std::string &value);

} // namespace steward
