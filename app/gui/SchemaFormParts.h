#pragma once

// The form's own parts, shared by its files (SchemaForm.cpp builds and shows, SchemaFormInputs.cpp
// makes the inputs of single values, SchemaFormLookups.cpp finds descriptors and references):
// schema reading helpers, the tree of nodes the form is built from, and SchemaForm::Private.
// Not for use outside the form.

#include "SchemaForm.h"

#include "ApiSchema.h"
#include "DocumentStore.h"

#include <QCheckBox>
#include <QHash>
#include <QString>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QComboBox;
class QCompleter;
class QFormLayout;
class QLabel;
class QLineEdit;
class QStringListModel;
class QToolButton;
class QVBoxLayout;

// Named, not anonymous: The form's Private holds these types, and a class whose members have
// internal linkage is warned about once the file is compiled inside a unity batch.
namespace formparts {

using steward::Json;

const Json &emptyObject();
// The schema's type ("object", "array", "string"...), from "type" or, without it, from its members.
std::string schemaType(const Json &schema);
const Json &propertiesOf(const Json &schema);
const Json &itemsOf(const Json &schema);
std::vector<std::string> requiredOf(const Json &schema);
bool isRequired(const Json &schema, const std::string &name);
const Json *childSchema(const Json *schema, const std::string &key);
// The value as people read it (formatDocumentJson): members in schemaPropertyOrder.
void writeJson(std::string &out, const Json &value, const Json *schema, const steward::ResourceSchema *resource,
               bool root, int indent);
// "gradeLevels" -> "grade level", "addresses" -> "address", "categories" -> "category".
QString singular(const std::string &name);
// Style sheets read dynamic properties only when polished again.
void repolish(QWidget *widget);
// A document's name as a person knows it (a school's name, a student's first and last names).
QString bodyName(const Json &body);
Json parseOr(const std::string &text, Json fallback = Json::object());

// A check box whose third state means "not set" and comes first: not set -> yes -> no (-> not set
// again only when the field is optional).
class ValueCheckBox : public QCheckBox
{
public:
    ValueCheckBox(bool allowUnset, QWidget *parent);

protected:
    void nextCheckState() override;

private:
    void updateText();

    bool m_allowUnset;
};

enum class FieldType { Text, Integer, Number, Boolean, Date, DateTime, Time, Enum, Descriptor };

struct Step
{
    std::string key;
    std::size_t index = 0;
    bool isIndex = false;
};

struct Node
{
    enum class Kind { Object, Array, Scalar };
    Kind kind = Kind::Scalar;
    Node *parent = nullptr;
    std::vector<Step> steps;
    QString path;
    std::string property; // member name; empty for the root and array items
    const Json *schema = nullptr;
    bool required = false;
    std::vector<std::unique_ptr<Node>> children;

    QWidget *box = nullptr;      // containers: group box or row
    QWidget *input = nullptr;    // scalars: the input; references: the search line
    QLabel *label = nullptr;     // scalars: the form label
    QLabel *errorLabel = nullptr; // containers: messages shown inside
    QString toolTip;
    FieldType type = FieldType::Text;

    QVBoxLayout *rows = nullptr; // arrays
    QLabel *emptyHint = nullptr;

    const steward::ReferenceMapping *reference = nullptr;
    QLabel *referenceStatus = nullptr;
    QToolButton *gotoButton = nullptr;
    QCompleter *completer = nullptr;
    QStringListModel *completions = nullptr;
    std::vector<steward::StoredDocument> candidates;
    QString targetId;

    const steward::DescriptorMapping *descriptor = nullptr;
};

std::vector<Step> appended(std::vector<Step> steps, Step step);
QFormLayout *makeFormLayout();
QLabel *makeErrorLabel();

} // namespace formparts

struct SchemaForm::Private
{
    using Node = formparts::Node;
    using Step = formparts::Step;

    SchemaForm *q;
    AppSession *session;
    const steward::ResourceSchema *resource = nullptr;
    steward::Json document = steward::Json::object();
    std::unique_ptr<Node> root;
    QVBoxLayout *outer = nullptr;
    QLabel *rootError = nullptr;
    QWidget *content = nullptr;
    QHash<QString, Node *> byPath;
    std::map<std::string, const steward::DescriptorMapping *> descriptorsByPath;
    std::map<std::string, const steward::ReferenceMapping *> referencesByPath;
    steward::ValidationErrors problems;
    bool refreshing = false;

    static QString tr(const char *text, const char *disambiguation = nullptr, int n = -1)
    {
        return SchemaForm::tr(text, disambiguation, n);
    }

    // Document access (SchemaFormParts.cpp)
    const steward::Json *valueAt(const std::vector<Step> &steps) const;
    steward::Json *mutableAt(const std::vector<Step> &steps) { return const_cast<steward::Json *>(valueAt(steps)); }
    steward::Json &assignAt(const std::vector<Step> &steps, steward::Json value);
    // Objects left empty go too (an empty reference is "absent", not "incomplete"); array items stay.
    void removeAt(std::vector<Step> steps);

    // Building (SchemaForm.cpp)
    void build();
    void buildMembers(Node *node, QFormLayout *form);
    // A titled box for an object or array, its tooltip and error label; returns its layout.
    QVBoxLayout *makeGroupBox(Node *node, QString title, bool named);
    void buildObjectBox(Node *node, QFormLayout *form);
    void buildArrayBox(Node *node, QFormLayout *form);
    void buildPicker(Node *node, QVBoxLayout *layout);
    void rebuildRows(Node *node);
    void destroyWidget(QWidget *widget);
    void reindex();
    void orderTabs();
    void index(Node *node);
    QString describe(const Node *node) const;

    // Inputs of single values (SchemaFormInputs.cpp)
    QWidget *buildScalar(Node *node, bool withLabel);
    void classifyScalar(Node *node);
    void buildScalarLabel(Node *node, bool withLabel);
    QWidget *buildBooleanInput(Node *node);
    QWidget *buildEnumInput(Node *node);
    QWidget *buildDescriptorInput(Node *node);
    QWidget *buildTextInput(Node *node);
    QWidget *buildDateField(Node *node, QLineEdit *edit);

    // Values (SchemaForm.cpp)
    std::optional<steward::Json> scalarValue(const Node *node) const;
    void commitScalar(Node *node);
    // An edit the steward finished (not one made while the form shows a document) becomes an undo step.
    void announceEdit(const Node *node);
    void commitAndAnnounce(Node *node)
    {
        commitScalar(node);
        announceEdit(node);
    }
    void refreshNode(Node *node);
    void showScalar(Node *node);
    void addRow(Node *array);
    void removeRow(Node *array, std::size_t index);

    // Problems (SchemaForm.cpp)
    Node *nearest(const QString &path) const;
    void clearMarks(Node *node);
    void applyProblems();

    // Lookups (SchemaFormLookups.cpp)
    // The descriptor's stored values as the combo's items: each label, its URI as data and tooltip.
    void fillDescriptorItems(Node *node, QComboBox *combo);
    // The URI on hover; a value no stored descriptor has marked as such.
    void markDescriptor(Node *node, const QString &uri, bool unknown);
    // The field's value as a URI (empty when blank), and whether a stored descriptor has it.
    std::pair<QString, bool> descriptorState(Node *node);
    QString candidateText(const steward::ReferenceMapping *reference, const steward::StoredDocument &doc) const;
    void searchReferences(Node *node, const QString &text);
    void chooseReference(Node *node, int row);
    void resolveReference(Node *node);
    void setReferenceStatus(Node *node, const QString &text, bool found);
    std::vector<Step> memberSteps(const Node *node, const steward::ReferencePathPair &pair) const;
    void collectReferences(Node *node, std::vector<Node *> &out);
    void collectDescriptors(Node *node, std::vector<Node *> &out);
};
