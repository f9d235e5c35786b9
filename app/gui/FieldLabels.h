#pragma once

#include <QString>

#include <string>

// How the app names a document's fields, the same in the form and in the table headers.

// "nameOfInstitution" -> "Name of institution"; acronyms stay as they are.
QString humanize(const std::string &name);
// The label without a trailing word ("Grade level descriptor" -> "Grade level").
QString withoutSuffix(QString label, const QString &suffix);
// A field's label as a column header or form label: humanized, without " descriptor".
QString fieldLabel(const std::string &property);
// One item of a collection, as a noun: "gradeLevels" -> "Grade level", "addresses" -> "Address".
QString singularLabel(const std::string &collection);
// A JSON path in the form's words: "$.addresses[0].city" -> "Addresses 1 › City" (items counted from one).
QString pathLabel(const std::string &path);
