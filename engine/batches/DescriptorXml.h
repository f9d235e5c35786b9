#pragma once

#include "ImportSource.h"

namespace steward {

// Reads Ed-Fi descriptor interchange XML (<InterchangeDescriptors> with elements such as
// <GradeLevelDescriptor><CodeValue>..</CodeValue><ShortDescription>..</ShortDescription>
// <Namespace>..</Namespace></GradeLevelDescriptor>) as import items for the loaded model,
// streaming with QXmlStreamReader. Problems (malformed XML, an element the model has no
// descriptor for, a missing Namespace or CodeValue) become items with an error naming the
// file, line and element; reading goes on with the next element where the XML allows.
std::unique_ptr<ImportSource> openDescriptorXml(const std::string &path, const Model &model, std::string *error);

} // namespace steward
