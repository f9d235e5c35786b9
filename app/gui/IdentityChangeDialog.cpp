#include "IdentityChangeDialog.h"

#include "AppSession.h"
#include "Prompt.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

IdentityChangeDialog::IdentityChangeDialog(AppSession &session, const QString &documentId, QWidget *parent)
    : QDialog(parent)
    , m_session(session)
    , m_documentId(documentId)
{
    setWindowTitle(tr("Change identity"));
    resize(720, 460);
    auto *layout = new QVBoxLayout(this);
    m_heading = new QLabel(this);
    m_heading->setWordWrap(true);
    layout->addWidget(m_heading);
    auto *form = new QFormLayout;
    layout->addLayout(form);

    std::optional<steward::StoredDocument> document = m_session.engine().document(documentId.toStdString());
    const steward::ResourceSchema *schema =
        document ? m_session.model().findByName(document->project, document->resource) : nullptr;
    if (document && schema) {
        m_heading->setText(tr("%1. Its resource %2 identity updates: %3")
                               .arg(describeDocument(*document),
                                    schema->allowIdentityUpdates ? tr("allows") : tr("does not allow"),
                                    schema->allowIdentityUpdates
                                        ? tr("the document is updated and what references it follows.")
                                        : tr("a new document is created, everything referencing the old one moves "
                                             "to it, and the old one is deleted.")));
        const steward::Json body = steward::Json::parse(document->body);
        const std::vector<std::string> names = steward::identityFieldNames(*schema);
        for (std::size_t i = 0; i < names.size(); ++i) {
            const steward::Json *value = schema->identityPaths[i].resolve(body, {});
            const QString text = value == nullptr ? QString()
                                 : value->is_string() ? QString::fromStdString(value->get<std::string>())
                                                      : QString::fromStdString(value->dump());
            auto *edit = new QLineEdit(text, this);
            const QString name = QString::fromStdString(names[i]);
            edit->setObjectName(name);
            m_fields.insert(name, edit);
            m_original.insert(name, text);
            form->addRow(name, edit);
            // A preview is only good for the values it was made with.
            connect(edit, &QLineEdit::textEdited, this, [this] { m_apply->setEnabled(false); });
        }
    } else {
        m_heading->setText(tr("No document with the id %1 exists.").arg(documentId));
    }
    m_steps = new QPlainTextEdit(this);
    m_steps->setObjectName(QStringLiteral("identitySteps"));
    m_steps->setReadOnly(true);
    m_steps->setPlaceholderText(tr("Change the values above, then Preview to see every step."));
    layout->addWidget(m_steps, 1);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_preview = buttons->addButton(tr("&Preview"), QDialogButtonBox::ActionRole);
    m_preview->setObjectName(QStringLiteral("previewIdentity"));
    m_apply = buttons->addButton(tr("&Apply"), QDialogButtonBox::AcceptRole);
    m_apply->setObjectName(QStringLiteral("applyIdentity"));
    m_apply->setEnabled(false);
    m_preview->setEnabled(document.has_value() && schema != nullptr);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_preview, &QPushButton::clicked, this, &IdentityChangeDialog::preview);
    connect(m_apply, &QPushButton::clicked, this, &IdentityChangeDialog::apply);
}

std::vector<std::pair<std::string, std::string>> IdentityChangeDialog::assignments() const
{
    std::vector<std::pair<std::string, std::string>> out;
    for (auto it = m_fields.cbegin(); it != m_fields.cend(); ++it)
        if (it.value()->text() != m_original.value(it.key()))
            out.emplace_back(it.key().toStdString(), it.value()->text().toStdString());
    return out;
}

void IdentityChangeDialog::preview()
{
    m_apply->setEnabled(false);
    const auto changes = assignments();
    if (changes.empty()) {
        m_steps->setPlainText(tr("No identity value was changed."));
        return;
    }
    const steward::IdentityChangeResult result =
        steward::changeIdentity(m_session.engine(), m_documentId.toStdString(), changes, false);
    QStringList lines;
    for (const steward::IdentityStep &step : result.steps)
        lines << QString::fromStdString(step.describe());
    if (!result.ok) {
        lines << QString() << tr("Refused: %1").arg(QString::fromStdString(result.error));
        m_steps->setPlainText(lines.join(QLatin1Char('\n')));
        return;
    }
    m_previewed = result.steps;
    lines << QString() << tr("%1 steps, in one transaction. Apply writes exactly these.").arg(result.steps.size());
    m_steps->setPlainText(lines.join(QLatin1Char('\n')));
    m_apply->setEnabled(true);
}

void IdentityChangeDialog::apply()
{
    const steward::IdentityChangeResult result = steward::changeIdentity(
        m_session.engine(), m_documentId.toStdString(), assignments(), true, &m_previewed);
    if (!result.ok) {
        m_apply->setEnabled(false);
        m_steps->appendPlainText(tr("\nNothing was written: %1").arg(QString::fromStdString(result.error)));
        Prompt::inform(this, tr("Change identity"),
                       tr("Nothing was written: %1").arg(QString::fromStdString(result.error)));
        return;
    }
    m_resultId = QString::fromStdString(result.resultId);
    m_session.announceEverythingChanged();
    accept();
}
