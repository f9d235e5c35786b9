#pragma once

#include "ImportSource.h"

namespace steward {

// Reads Ed-Fi interchange XML other than descriptors (<InterchangeEducationOrganization>,
// <InterchangeStudent>, ...) as import items for the loaded model, streaming with
// QXmlStreamReader: one top-level element at a time is held as a small tree and mapped to its
// resource's JSON document by rules over the model (element names to JSON Schema properties,
// <*Reference> identities through the ApiSchema reference paths, id/ref attributes resolved within
// the file); docs/architecture.md lists the rules. Problems (malformed XML, a wrong namespace, an
// element the model has no place for, a value of the wrong type) become items with an error
// naming the file, line and element; reading goes on with the next element where the XML allows.
std::unique_ptr<ImportSource> openInterchangeXml(const std::string &path, const Model &model,
                                                 std::string *error);

} // namespace steward
