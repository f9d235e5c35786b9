// The editor's verdict beyond validation: what the engine knows about the record shown (rule and
// state results, acknowledgements, drafts waiting on it, sync conflicts), and the notice that another
// program changed it since it was opened.
#include "DocumentEditor.h"
#include "DocumentEditorParts.h"

#include "JsonDiff.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

using steward::Json;
using steward::RecordFact;

namespace {

QStyle::StandardPixmap severityIcon(const std::string &severity, bool acknowledged)
{
    if (acknowledged || severity == "info")
        return QStyle::SP_MessageBoxInformation;
    if (severity == "warning")
        return QStyle::SP_MessageBoxWarning;
    return QStyle::SP_MessageBoxCritical;
}

QString severityWord(const std::string &severity)
{
    QString word = QString::fromStdString(severity);
    if (!word.isEmpty())
        word[0] = word[0].toUpper();
    return word;
}

// "Fatal · Birth date not in the future: Birth date 2999-01-01 is in the future.
//  What to do: Correct the student's birth date. (Steward rules, pack steward-starter)"
QString factText(const RecordFact &fact)
{
    QString text = severityWord(fact.severity) + QStringLiteral(" · ") + QString::fromStdString(fact.title);
    if (fact.code != fact.title && !fact.code.empty() && fact.kind != RecordFact::Kind::Conflict)
        text += QStringLiteral(" (%1)").arg(QString::fromStdString(fact.code));
    if (!fact.message.empty())
        text += QStringLiteral(": ") + QString::fromStdString(fact.message);
    if (!fact.field.empty())
        text += QStringLiteral(" [%1]").arg(QString::fromStdString(fact.field));
    QString second;
    if (fact.acknowledged)
        second = DocumentEditor::tr("Acknowledged by %1: %2")
                     .arg(QString::fromStdString(fact.ackActor), QString::fromStdString(fact.ackReason));
    else if (!fact.fix.empty())
        second = DocumentEditor::tr("What to do: %1").arg(QString::fromStdString(fact.fix));
    if (!fact.source.empty())
        second += (second.isEmpty() ? QString() : QStringLiteral(" ")) + QStringLiteral("(%1)").arg(QString::fromStdString(fact.source));
    if (!second.isEmpty())
        text += QLatin1Char('\n') + second;
    return text;
}

} // namespace

void DocumentEditor::Private::reloadFacts()
{
    facts = {};
    if (documentId.isEmpty())
        return;
    try {
        facts = session->recordFacts(documentId);
    } catch (const std::exception &) {
        facts = {};
    }
}

void DocumentEditor::Private::appendFacts()
{
    for (std::size_t index = 0; index < facts.facts.size(); ++index) {
        const RecordFact &fact = facts.facts[index];
        if (!shownFact(fact))
            continue;
        auto *item = new QListWidgetItem(q->style()->standardIcon(severityIcon(fact.severity, fact.acknowledged)),
                                         factText(fact));
        item->setData(editorparts::kFactRole, static_cast<int>(index));
        item->setData(editorparts::kPathRole, QString::fromStdString(fact.field));
        item->setToolTip(item->text());
        problems->addItem(item);
    }
}

bool DocumentEditor::Private::shownFact(const RecordFact &fact) const
{
    // The draft being edited is not listed as a fact: its problem is the validation above.
    return !(fact.kind == RecordFact::Kind::Draft && fact.draftId == draftId);
}

int DocumentEditor::Private::openFactCount() const
{
    int count = 0;
    for (const RecordFact &fact : facts.facts)
        if (!fact.acknowledged && shownFact(fact))
            ++count;
    return count;
}

QString DocumentEditor::Private::factsSummary() const
{
    std::map<int, int> bySeverity;
    int acknowledged = 0;
    for (const RecordFact &fact : facts.facts) {
        if (!shownFact(fact))
            continue;
        if (fact.acknowledged)
            ++acknowledged;
        else
            ++bySeverity[steward::severityRank(fact.severity)];
    }
    static const char *const kWords[] = {"fatal", "error", "warning", "info", "other"};
    QStringList parts;
    for (const auto &[rank, count] : bySeverity)
        parts << QStringLiteral("%1 %2").arg(count).arg(QString::fromLatin1(kWords[std::min(rank, 4)]));
    if (acknowledged > 0)
        parts << tr("%1 acknowledged").arg(acknowledged);
    return parts.join(QStringLiteral(", "));
}

bool DocumentEditor::Private::goToFact(QListWidgetItem *item)
{
    const QVariant index = item->data(editorparts::kFactRole);
    if (!index.isValid() || index.toInt() < 0 || index.toInt() >= static_cast<int>(facts.facts.size()))
        return false;
    const RecordFact &fact = facts.facts[static_cast<std::size_t>(index.toInt())];
    if (fact.kind == RecordFact::Kind::Conflict) {
        Q_EMIT q->conflictRequested(documentId, QString::fromStdString(fact.targetUrl));
        return true;
    }
    if (fact.kind == RecordFact::Kind::Draft) {
        Q_EMIT q->draftRequested(fact.draftId);
        return true;
    }
    return fact.field.empty(); // a field: the form shows it
}

void DocumentEditor::Private::checkChangedElsewhere()
{
    if (documentId.isEmpty() || resource == nullptr)
        return;
    std::optional<steward::StoredDocument> stored;
    try {
        stored = session->engine().document(documentId.toStdString());
    } catch (const std::exception &) {
        return;
    }
    if (!stored) {
        showChangedNotice(tr("This %1 was deleted by another program. Your text is kept: "
                             "<a href=\"#draft\">save it as a draft</a> to keep it.")
                              .arg(QString::fromStdString(resource->resourceName)));
        return;
    }
    if (stored->etag == etag)
        return;
    showChangedNotice(tr("This %1 was changed by another program since you opened it. "
                         "<a href=\"#reload\">Reload</a> · <a href=\"#compare\">Compare</a>")
                          .arg(QString::fromStdString(resource->resourceName)));
}

void DocumentEditor::Private::showChangedNotice(const QString &html)
{
    changedNotice->setText(html);
    changedNotice->show();
}

void DocumentEditor::Private::followChangedNotice(const QString &link)
{
    if (link == QLatin1String("#reload")) {
        changedNotice->hide();
        closeBurst();
        // Undoable: the text typed here comes back with Undo.
        const QString before = text;
        if (loadStored(true) && before != text) {
            const QString after = text;
            applyText(before, Origin::None);
            pushText(after, QString(), Origin::None, tr("Reload"));
        }
        reloadFacts();
        revalidate();
    } else if (link == QLatin1String("#compare")) {
        compareWithStored();
    } else if (link == QLatin1String("#draft")) {
        q->saveAsDraft();
    }
}

void DocumentEditor::Private::compareWithStored()
{
    std::optional<steward::StoredDocument> stored = session->engine().document(documentId.toStdString());
    if (!stored || !parsed)
        return;
    const Json theirs = Json::parse(stored->body, nullptr, false);
    QStringList lines;
    for (const steward::FieldChange &change : steward::diffJson(theirs, *parsed)) {
        const QString path = QString::fromStdString(change.path);
        const QString storedValue = change.before.is_null() ? tr("(none)") : QString::fromStdString(change.before.dump());
        const QString yourValue = change.after.is_null() ? tr("(none)") : QString::fromStdString(change.after.dump());
        lines << tr("%1\n    stored now: %2\n    yours:      %3").arg(path, storedValue, yourValue);
    }
    QDialog dialog(q);
    dialog.setWindowTitle(tr("Your text against the stored %1").arg(QString::fromStdString(resource->resourceName)));
    auto *layout = new QVBoxLayout(&dialog);
    auto *view = new QPlainTextEdit(lines.isEmpty() ? tr("Your text is the same as the stored version.")
                                                    : lines.join(QLatin1Char('\n')));
    view->setObjectName(QStringLiteral("compareView"));
    view->setReadOnly(true);
    layout->addWidget(view);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    dialog.resize(640, 420);
    dialog.exec();
}
