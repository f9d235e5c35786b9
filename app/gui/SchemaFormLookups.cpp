#include "SchemaFormParts.h"

#include "FieldLabels.h"

#include "AppSession.h"

#include <QAbstractScrollArea>
#include <QLayout>
#include <QAbstractItemView>
#include <QCalendarWidget>
#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QDate>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHash>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QRegularExpression>
#include <QRegularExpressionValidator>
#include <QScopedValueRollback>
#include <QStringListModel>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWidgetAction>
#include <algorithm>
#include <optional>
#include <set>

// Lookups: descriptor values from the database, and references found, chosen and resolved.

using namespace formparts;

std::pair<QString, bool> SchemaForm::Private::descriptorState(Node *node)
{
    const std::optional<Json> value = scalarValue(node);
    if (!value)
        return {QString(), false};
    const QString uri = QString::fromStdString(value->get<std::string>());
    const auto *combo = static_cast<QComboBox *>(node->input);
    return {uri, combo->findData(uri, Qt::UserRole, Qt::MatchFixedString) >= 0};
}

void SchemaForm::Private::markDescriptor(Node *node, const QString &uri, bool unknown)
{
    auto *combo = static_cast<QComboBox *>(node->input);
    combo->setToolTip(unknown ? tr("%1 is not a stored %2 value")
                                    .arg(uri, QString::fromStdString(node->descriptor->descriptorResourceName))
                              : uri);
    combo->setProperty("unknownValue", unknown);
    combo->lineEdit()->setStyleSheet(unknown ? QStringLiteral("color: #b71c1c; font-style: italic;") : QString());
}

void SchemaForm::Private::fillDescriptorItems(Node *node, QComboBox *combo)
{
    // Filling an empty combo selects an item; what the field shows must stay.
    QScopedValueRollback<bool> guard(refreshing, true);
    const QString text = combo->currentText();
    combo->clear();
    for (const DescriptorLabels::Value &value : session->descriptorLabels().values(
             node->descriptor->descriptorProjectName, node->descriptor->descriptorResourceName)) {
        combo->addItem(value.label, QString::fromStdString(value.uri));
        combo->setItemData(combo->count() - 1, QString::fromStdString(value.uri), Qt::ToolTipRole);
    }
    combo->setCurrentIndex(-1);
    combo->setEditText(text);
}

QString SchemaForm::Private::candidateText(const steward::ReferenceMapping *reference,
                                           const steward::StoredDocument &doc) const
{
    QString text = QString::fromStdString(steward::naturalKeyText(parseOr(doc.identity)));
    const QString name = bodyName(parseOr(doc.body));
    if (!name.isEmpty())
        text += QStringLiteral(" — ") + name;
    if (doc.resource != reference->targetResourceName)
        text += QStringLiteral(" (%1)").arg(QString::fromStdString(doc.resource));
    return text;
}

void SchemaForm::Private::searchReferences(Node *node, const QString &text)
{
    node->candidates.clear();
    const QString prefix = text.trimmed();
    if (!prefix.isEmpty()) {
        try {
            node->candidates = session->engine().lookup(node->reference->targetProjectName,
                                                        node->reference->targetResourceName, prefix.toStdString(), 20);
        } catch (const std::exception &) {
            node->candidates.clear();
        }
    }
    QStringList texts;
    for (const steward::StoredDocument &doc : node->candidates)
        texts << candidateText(node->reference, doc);
    node->completions->setStringList(texts);
    if (texts.isEmpty()) {
        node->completer->popup()->hide();
        if (!prefix.isEmpty())
            setReferenceStatus(node, tr("No stored %1 has a key starting with “%2”.")
                                         .arg(QString::fromStdString(node->reference->targetResourceName), prefix),
                               false);
    } else {
        node->completer->complete();
    }
}

std::vector<Step> SchemaForm::Private::memberSteps(const Node *node, const steward::ReferencePathPair &pair) const
{
    // "$.classPeriods[*].classPeriodReference.classPeriodName" less the object path: ".classPeriodName".
    const std::string &objectPath = node->reference->objectPath.text();
    std::string rest = pair.referencePath.text().substr(std::min(objectPath.size(), pair.referencePath.text().size()));
    std::vector<Step> steps = node->steps;
    const QStringList parts = QString::fromStdString(rest).split(u'.', Qt::SkipEmptyParts);
    for (const QString &part : parts)
        steps.push_back(Step{part.toStdString()});
    return steps;
}

void SchemaForm::Private::chooseReference(Node *node, int row)
{
    if (row < 0 || row >= static_cast<int>(node->candidates.size()))
        return;
    const steward::StoredDocument doc = node->candidates[static_cast<std::size_t>(row)];
    const Json body = parseOr(doc.body);
    const steward::ResourceSchema *target = session->resourceByName(doc.project, doc.resource);
    for (const steward::ReferencePathPair &pair : node->reference->paths) {
        const Json *value = pair.identityPath.resolve(body, {});
        // An abstract target (EducationOrganization): the subclass's own identity value
        // (School.schoolId) stands for the superclass one (educationOrganizationId).
        if (value == nullptr && target != nullptr && target->isSubclass
            && target->superclassIdentityPath == pair.identityPath.text() && target->identityPaths.size() == 1)
            value = target->identityPaths.front().resolve(body, {});
        if (value != nullptr)
            assignAt(memberSteps(node, pair), *value);
    }
    refreshNode(node);
    const QString text = candidateText(node->reference, doc);
    {
        QScopedValueRollback<bool> guard(refreshing, true);
        static_cast<QLineEdit *>(node->input)->setText(text);
    }
    node->completer->popup()->hide();
    node->targetId = QString::fromStdString(doc.id);
    setReferenceStatus(node, text, true);
    Q_EMIT q->changed(node->path);
    Q_EMIT q->editFinished(node->path);
}

void SchemaForm::Private::setReferenceStatus(Node *node, const QString &text, bool found)
{
    node->gotoButton->setEnabled(found && !node->targetId.isEmpty());
    node->referenceStatus->setVisible(!text.isEmpty());
    node->referenceStatus->setText(found ? QStringLiteral("✓ ") + text : text);
    node->referenceStatus->setProperty("found", found);
    repolish(node->referenceStatus);
}

void SchemaForm::Private::resolveReference(Node *node)
{
    Json identity = Json::object();
    bool complete = true;
    for (const steward::ReferencePathPair &pair : node->reference->paths) {
        const Json *value = valueAt(memberSteps(node, pair));
        if (value == nullptr || value->is_null() || value->is_structured()) {
            complete = false;
            break;
        }
        pair.identityPath.assign(identity, {}, *value);
    }
    auto *search = static_cast<QLineEdit *>(node->input);
    node->targetId.clear();
    if (!complete) {
        setReferenceStatus(node, QString(), false);
        if (!search->hasFocus() && valueAt(node->steps) == nullptr) {
            QScopedValueRollback<bool> guard(refreshing, true);
            search->clear();
        }
        return;
    }
    const std::string key = steward::naturalKeyText(identity);
    std::vector<steward::StoredDocument> docs;
    try {
        docs = session->engine().lookup(node->reference->targetProjectName, node->reference->targetResourceName, key, 20);
    } catch (const std::exception &) {
        docs.clear();
    }
    for (const steward::StoredDocument &doc : docs) {
        if (QString::fromStdString(steward::naturalKeyText(parseOr(doc.identity)))
                .compare(QString::fromStdString(key), Qt::CaseInsensitive)
            != 0)
            continue;
        node->targetId = QString::fromStdString(doc.id);
        const QString text = candidateText(node->reference, doc);
        setReferenceStatus(node, text, true);
        if (!search->hasFocus() && search->text() != text) {
            QScopedValueRollback<bool> guard(refreshing, true);
            search->setText(text);
        }
        return;
    }
    setReferenceStatus(node,
                       tr("No stored %1 has the key %2 (yet).")
                           .arg(QString::fromStdString(node->reference->targetResourceName), QString::fromStdString(key)),
                       false);
}

void SchemaForm::Private::collectReferences(Node *node, std::vector<Node *> &out)
{
    if (node->reference != nullptr)
        out.push_back(node);
    for (const std::unique_ptr<Node> &child : node->children)
        collectReferences(child.get(), out);
}

void SchemaForm::Private::collectDescriptors(Node *node, std::vector<Node *> &out)
{
    if (node->type == FieldType::Descriptor && node->input != nullptr)
        out.push_back(node);
    for (const std::unique_ptr<Node> &child : node->children)
        collectDescriptors(child.get(), out);
}
