#pragma once

#include "ApiSchema.h"
#include "Json.h"
#include "Validation.h"

#include <QString>
#include <QWidget>

#include <memory>
#include <string>
#include <vector>

class AppSession;

// Display order of an object schema's properties: on the resource's root object its identity
// members first, then required members in the schema's order, then optional scalars, objects and
// arrays (alphabetically within each group).
std::vector<std::string> schemaPropertyOrder(const steward::Json &objectSchema, const steward::ResourceSchema *resource,
                                             bool root);
// The document as people read it: 2-space indent, members in schemaPropertyOrder, unknown ones last.
QString formatDocumentJson(const steward::Json &document, const steward::ResourceSchema *resource);
// A new document: an empty object, plus the required arrays that may be empty (as []).
steward::Json newDocumentSkeleton(const steward::Json &objectSchema);
// "$.gradeLevels[*].gradeLevelDescriptor" for "$.gradeLevels[0].gradeLevelDescriptor".
std::string genericJsonPath(const std::string &concretePath);
// The path one step up: "$.a[0]" for "$.a[0].b", "$.a" for "$.a[0]", "$" for "$.a", empty for "$".
QString parentJsonPath(const QString &path);

// A form generated from a resource's JSON Schema, editing one JSON document. Every input's
// objectName is its JSON path ("$.schoolId", "$.gradeLevels[0].gradeLevelDescriptor"; a reference's
// search line is named after the reference object, "$.educationOrganizationReference"); array
// groups are named after the array, each row after its item ("$.gradeLevels[0]"), and their buttons
// "<array>#add" and "<item>#remove"; a reference's "Go to" button is "<reference>#goto".
class SchemaForm : public QWidget
{
    Q_OBJECT

public:
    explicit SchemaForm(AppSession *session, QWidget *parent = nullptr);
    ~SchemaForm() override;

    // Builds the form for a resource (null: an empty form) with an empty document.
    void setResource(const steward::ResourceSchema *resource);
    const steward::ResourceSchema *resource() const;

    // Shows a document; inputs are updated in place, array rows rebuilt where their count differs.
    void setDocument(const steward::Json &document);
    const steward::Json &document() const;

    // Messages keyed by JSON path, each shown at the nearest field that exists (walking up);
    // those that reach the root show above the form.
    void setProblems(const steward::ValidationErrors &problems);
    // The input (or group) that shows a path, walking up to the nearest existing parent; may be null.
    QWidget *fieldWidget(const QString &path) const;

    // Looks up every reference's target again (status text and Go to buttons).
    void refreshReferences();
    // Forgets the cached descriptor lists (after documents changed).
    void invalidateLookups();

Q_SIGNALS:
    // The document changed through an input (on every keystroke for text inputs).
    void changed(const QString &path);
    // The edit of that input is complete (focus left it, an item was chosen, a row added...).
    void editFinished(const QString &path);
    // A reference's "Go to" button: the id of the referenced document.
    void navigateRequested(const QString &id);

private:
    struct Private;
    std::unique_ptr<Private> d;
};
