#include "ConflictDialog.h"

#include "AppSession.h"
#include "FieldLabels.h"
#include "ItemKeys.h"

#include <algorithm>

#include <QButtonGroup>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QScreen>
#include <QScrollBar>
#include <QShowEvent>
#include <QStyle>
#include <QStyleOptionViewItem>
#include <QAbstractItemDelegate>
#include <QTableWidget>
#include <QTextDocumentFragment>
#include <QUrl>
#include <QVBoxLayout>
#include <QWindow>

namespace {

enum ConflictColumn
{
    FieldColumn,
    BaseColumn,
    MineColumn,
    TheirsColumn,
    DecisionColumn,
    ValueColumn,
};

// A value as a steward reads it: text without quotes, anything else as JSON; absent as nothing.
QString shown(const std::optional<steward::Json> &value)
{
    if (!value)
        return {};
    return value->is_string() ? QString::fromStdString(value->get<std::string>())
                              : QString::fromStdString(steward::dumpJson(*value));
}

QTableWidgetItem *readOnly(const QString &text, const QString &absent = {})
{
    auto *item = new QTableWidgetItem(text.isEmpty() ? absent : text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    if (text.isEmpty()) {
        QFont font = item->font();
        font.setItalic(true);
        item->setFont(font);
    }
    return item;
}

// A collection item as a steward reads it: one line a field, by the form's labels, the fields that differ
// between the versions in bold; descriptor URIs by their code value.
QString itemText(const std::optional<steward::Json> &item, const std::vector<std::string> &differing,
                 const QString &absent)
{
    if (!item || !item->is_object())
        return QStringLiteral("<i>%1</i>").arg(absent.toHtmlEscaped());
    QStringList lines;
    for (auto it = item->begin(); it != item->end(); ++it) {
        QString value = shown(it.value());
        if (it.value().is_string() && it.key().ends_with("Descriptor") && value.contains(QLatin1Char('#')))
            value = value.section(QLatin1Char('#'), -1);
        QString line = QStringLiteral("%1: %2").arg(fieldLabel(it.key()), value).toHtmlEscaped();
        if (std::find(differing.begin(), differing.end(), it.key()) != differing.end())
            line = QStringLiteral("<b>%1</b>").arg(line);
        lines << line;
    }
    return lines.join(QStringLiteral("<br>"));
}

QLabel *itemLabel(const QString &html, QWidget *parent)
{
    auto *label = new QLabel(html, parent);
    label->setTextFormat(Qt::RichText);
    label->setMargin(4);
    label->setWordWrap(true);
    label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    label->setAccessibleName(QTextDocumentFragment::fromHtml(html).toPlainText());
    return label;
}

QPlainTextEdit *documentPane(const std::optional<steward::Json> &document, const QString &absent, QWidget *parent)
{
    auto *pane = new QPlainTextEdit(parent);
    pane->setReadOnly(true);
    pane->setAccessibleName(absent);
    pane->setPlainText(document ? QString::fromStdString(document->dump(2)) : absent);
    return pane;
}

// A descriptor URI by its code value; anything else as shown.
QString valueText(const std::string &field, const steward::Json &value)
{
    QString text = shown(value);
    if (value.is_string() && field.ends_with("Descriptor") && text.contains(QLatin1Char('#')))
        text = text.section(QLatin1Char('#'), -1);
    return text;
}

// An item's key as a steward reads it ("Physical", "Ninth grade"): the key's stable part (an address's
// type) where it has one, else the whole key; a reference by its values. Empty when the item holds none.
QString itemKeyText(const steward::Json &item, const steward::ItemKey &key)
{
    if (!item.is_object())
        return item.is_structured() ? QString() : shown(item);
    QStringList parts;
    for (const std::string &field : key.stable.empty() ? key.fields : key.stable) {
        auto it = item.find(field);
        if (it == item.end())
            continue;
        if (!it->is_object()) {
            parts << valueText(field, *it);
            continue;
        }
        for (auto member = it->begin(); member != it->end(); ++member)
            if (!member->is_structured())
                parts << valueText(member.key(), *member);
    }
    return parts.join(QStringLiteral(" · "));
}

// One step of a conflict's path: a member and the array positions after it ("addresses", {1}).
struct PathStep
{
    std::string name;
    std::vector<std::size_t> positions;
};

std::vector<PathStep> pathSteps(const std::string &path)
{
    std::vector<PathStep> steps;
    std::size_t i = path.rfind("$.", 0) == 0 ? 2 : 0;
    while (i < path.size()) {
        PathStep step;
        const std::size_t end = path.find_first_of(".[", i);
        step.name = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
        i = end == std::string::npos ? path.size() : end;
        while (i < path.size() && path[i] == '[') {
            const std::size_t close = path.find(']', i);
            if (close == std::string::npos)
                return steps;
            step.positions.push_back(static_cast<std::size_t>(std::stoul(path.substr(i + 1, close - i - 1))));
            i = close + 1;
        }
        if (i < path.size() && path[i] == '.')
            ++i;
        steps.push_back(std::move(step));
    }
    return steps;
}

const steward::Json *memberOf(const steward::Json *object, const std::string &name)
{
    if (object == nullptr || !object->is_object())
        return nullptr;
    auto it = object->find(name);
    return it == object->end() ? nullptr : &*it;
}

} // namespace

QString conflictPathLabel(const steward::ConflictView &conflict, const steward::MergeConflict &field,
                          const steward::ResourceSchema *resource)
{
    if (resource == nullptr || !conflict.mine)
        return pathLabel(field.path);
    // An item's position counts in mine (the merge's order: mine's items first), where a field in
    // conflict inside an item always is.
    const steward::Json *mine = &*conflict.mine;
    // A whole item in conflict is named by the item both sides changed: the one agreed on before.
    const std::optional<steward::Json> &wholeItem = field.base   ? field.base
                                                    : field.mine ? field.mine
                                                                 : field.theirs;
    const std::vector<PathStep> steps = pathSteps(field.path);
    std::string generic = "$";
    QStringList parts;
    for (std::size_t s = 0; s < steps.size(); ++s) {
        const PathStep &step = steps[s];
        generic += "." + step.name;
        mine = memberOf(mine, step.name);
        QString part = fieldLabel(step.name);
        for (std::size_t p = 0; p < step.positions.size(); ++p) {
            const std::size_t position = step.positions[p];
            generic += "[*]";
            const bool last = s + 1 == steps.size() && p + 1 == step.positions.size();
            const bool held = mine != nullptr && mine->is_array() && position < mine->size();
            mine = held ? &(*mine)[position] : nullptr;
            const steward::Json *item = field.item && last && wholeItem ? &*wholeItem : mine;
            const QString key =
                item != nullptr ? itemKeyText(*item, steward::itemKeyOf(resource, generic)) : QString();
            part = key.isEmpty() ? part + QLatin1Char(' ') + QString::number(position + 1)
                                 : QStringLiteral("%1: %2").arg(singularLabel(step.name), key);
        }
        parts << part;
    }
    return parts.join(QStringLiteral(" › "));
}

ConflictDialog::ConflictDialog(AppSession &session, const steward::ConflictView &conflict, QWidget *parent)
    : QDialog(parent)
    , m_session(session)
    , m_conflict(conflict)
    , m_resource(session.engine().model().findByName(conflict.conflict.project, conflict.conflict.resource))
{
    setObjectName(QStringLiteral("conflictDialog"));
    const QString what = QString::fromStdString(conflict.conflict.resource + " " + conflict.naturalKey);
    const QString host = QUrl(QString::fromStdString(conflict.url)).host();
    setWindowTitle(tr("Sync conflict: %1").arg(what));

    auto *layout = new QVBoxLayout(this);
    auto *heading = new QLabel(this);
    heading->setWordWrap(true);
    heading->setTextFormat(Qt::RichText);
    heading->setText(tr("<b>%1</b>, since it was last in step with %2: %3.<br>Nothing of either was "
                        "overwritten. Decide what it keeps; the next push sends your decision.")
                         .arg(what.toHtmlEscaped(), QString::fromStdString(conflict.url).toHtmlEscaped(),
                              conflictSummary(conflict, m_resource).toHtmlEscaped()));
    layout->addWidget(heading);

    const bool bothHold = conflict.mine && conflict.theirs;
    m_fields = new QTableWidget(0, 6, this);
    m_fields->setObjectName(QStringLiteral("conflictFields"));
    m_fields->setAccessibleName(tr("Fields changed on both sides"));
    m_fields->setHorizontalHeaderLabels(
        {tr("Field"), tr("Agreed before"), tr("Here (mine)"), tr("On %1 (theirs)").arg(host), tr("Keep"), tr("Value")});
    m_fields->horizontalHeader()->setStretchLastSection(true);
    m_fields->verticalHeader()->hide();
    m_fields->setSelectionMode(QAbstractItemView::NoSelection);
    layout->addWidget(m_fields, 1);
    fillFields();

    // Whole documents: what each side holds, for a delete against an edit and for a look at everything.
    auto *documents = new QHBoxLayout;
    documents->addWidget(documentPane(conflict.mine, tr("(deleted here)"), this));
    documents->addWidget(documentPane(conflict.theirs, tr("(deleted on %1)").arg(host), this));
    auto *wholeBox = new QGroupBox(tr("Whole documents: here (left) and on %1 (right)").arg(host), this);
    wholeBox->setLayout(documents);
    layout->addWidget(wholeBox, conflict.fields.empty() ? 1 : 0);
    wholeBox->setVisible(conflict.fields.empty());

    auto *choice = new QHBoxLayout;
    auto *group = new QButtonGroup(this);
    m_byField = new QRadioButton(tr("Decide field by field"), this);
    m_wholeMine = new QRadioButton(conflict.mine ? tr("Keep mine, whole") : tr("Keep it deleted"), this);
    m_wholeTheirs = new QRadioButton(conflict.theirs ? tr("Take theirs, whole") : tr("Delete it here too"), this);
    m_byField->setObjectName(QStringLiteral("conflictByField"));
    m_wholeMine->setObjectName(QStringLiteral("conflictWholeMine"));
    m_wholeTheirs->setObjectName(QStringLiteral("conflictWholeTheirs"));
    for (QRadioButton *button : {m_byField, m_wholeMine, m_wholeTheirs}) {
        group->addButton(button);
        choice->addWidget(button);
    }
    choice->addStretch(1);
    layout->addLayout(choice);
    // A delete against an edit, or a merge the engine refused, is decided for the whole document.
    const bool byFieldPossible =
        bothHold && !conflict.fields.empty() && conflict.conflict.kind != steward::SyncConflict::Kind::Refused;
    m_byField->setVisible(byFieldPossible);
    (byFieldPossible ? m_byField : m_wholeMine)->setChecked(true);
    connect(m_byField, &QRadioButton::toggled, m_fields, &QWidget::setEnabled);
    m_fields->setVisible(byFieldPossible);

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("conflictError"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #b00020"));
    m_error->hide();
    layout->addWidget(m_error);

    auto *buttons = new QDialogButtonBox(this);
    QPushButton *applyButton = buttons->addButton(tr("&Apply"), QDialogButtonBox::AcceptRole);
    applyButton->setObjectName(QStringLiteral("conflictApply"));
    buttons->addButton(QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (apply())
            accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

void ConflictDialog::fillFields()
{
    m_fields->setRowCount(static_cast<int>(m_conflict.fields.size()));
    for (int row = 0; row < m_fields->rowCount(); ++row) {
        const steward::MergeConflict &field = m_conflict.fields[static_cast<std::size_t>(row)];
        const QString name = conflictPathLabel(m_conflict, field, m_resource);
        auto *label = readOnly(name);
        label->setToolTip(QStringLiteral("%1\n%2").arg(name, QString::fromStdString(field.path)));
        label->setData(Qt::UserRole, QString::fromStdString(field.path));
        m_fields->setItem(row, FieldColumn, label);
        auto *decision = new QComboBox(m_fields);
        decision->setObjectName(QStringLiteral("conflictDecision%1").arg(row));
        decision->setAccessibleName(tr("What %1 keeps").arg(name));
        if (field.item)
            fillItemRow(row, decision);
        else
            fillValueRow(row, decision);
        // At the top of a row an item makes tall, not stretched to its height (measured with its
        // choices: a combo box keeps the size it first measured).
        decision->setMaximumHeight(decision->sizeHint().height());
        m_fields->setCellWidget(row, DecisionColumn, decision);
        connect(decision, &QComboBox::currentIndexChanged, this, [this, row] { showKeptValue(row); });
        showKeptValue(row);
    }
    m_fields->resizeColumnsToContents();
    m_fields->resizeRowsToContents();
}

// A whole item: shown whole on each side, decided whole (one side's item, the agreed one, or both kept).
void ConflictDialog::fillItemRow(int row, QComboBox *decision)
{
    const steward::MergeConflict &field = m_conflict.fields[static_cast<std::size_t>(row)];
    const std::vector<std::string> differing = field.differingFields();
    m_fields->setItem(row, BaseColumn, readOnly({}));
    m_fields->setItem(row, MineColumn, readOnly({}));
    m_fields->setItem(row, TheirsColumn, readOnly({}));
    m_fields->setItem(row, ValueColumn, readOnly({}));
    m_fields->setCellWidget(row, BaseColumn,
                            itemLabel(itemText(field.base, differing, tr("(none)")), m_fields));
    m_fields->setCellWidget(row, MineColumn,
                            itemLabel(itemText(field.mine, differing, tr("(removed here)")), m_fields));
    m_fields->setCellWidget(row, TheirsColumn,
                            itemLabel(itemText(field.theirs, differing, tr("(removed there)")), m_fields));
    QLabel *kept = itemLabel({}, m_fields);
    kept->setObjectName(QStringLiteral("conflictValue%1").arg(row));
    m_fields->setCellWidget(row, ValueColumn, kept);
    decision->addItem(field.mine ? tr("Mine") : tr("Leave it out"), static_cast<int>(Decision::Mine));
    decision->addItem(field.theirs ? tr("Theirs") : tr("Leave it out"), static_cast<int>(Decision::Theirs));
    if (field.mine && field.theirs)
        decision->addItem(tr("Both items"), static_cast<int>(Decision::Both));
    if (field.base)
        decision->addItem(tr("Agreed before"), static_cast<int>(Decision::Base));
}

// A single value: mine, theirs, the agreed one, or one typed in the Value column.
void ConflictDialog::fillValueRow(int row, QComboBox *decision)
{
    const steward::MergeConflict &field = m_conflict.fields[static_cast<std::size_t>(row)];
    m_fields->setItem(row, BaseColumn, readOnly(shown(field.base), tr("(none)")));
    m_fields->setItem(row, MineColumn, readOnly(shown(field.mine), tr("(none)")));
    m_fields->setItem(row, TheirsColumn, readOnly(shown(field.theirs), tr("(none)")));
    decision->addItem(tr("Mine"), static_cast<int>(Decision::Mine));
    decision->addItem(tr("Theirs"), static_cast<int>(Decision::Theirs));
    decision->addItem(tr("Own value"), static_cast<int>(Decision::OwnValue));
    if (field.base)
        decision->addItem(tr("Agreed before"), static_cast<int>(Decision::Base));
    auto *value = new QLineEdit(m_fields);
    value->setObjectName(QStringLiteral("conflictValue%1").arg(row));
    value->setPlaceholderText(tr("(leave the field out)"));
    value->setAccessibleName(tr("The value %1 gets").arg(m_fields->item(row, FieldColumn)->text()));
    value->setMinimumWidth(value->fontMetrics().averageCharWidth() * 16);
    m_fields->setCellWidget(row, ValueColumn, value);
}

void ConflictDialog::showKeptValue(int row)
{
    const steward::MergeConflict &field = m_conflict.fields[static_cast<std::size_t>(row)];
    const auto chosen = static_cast<Decision>(
        qobject_cast<QComboBox *>(m_fields->cellWidget(row, DecisionColumn))->currentData().toInt());
    if (auto *value = qobject_cast<QLineEdit *>(m_fields->cellWidget(row, ValueColumn))) {
        value->setReadOnly(chosen != Decision::OwnValue);
        if (chosen == Decision::Mine)
            value->setText(shown(field.mine));
        else if (chosen == Decision::Theirs)
            value->setText(shown(field.theirs));
        else if (chosen == Decision::Base)
            value->setText(shown(field.base));
        // A value longer than the column reads from its start.
        value->setCursorPosition(0);
        return;
    }
    auto *kept = qobject_cast<QLabel *>(m_fields->cellWidget(row, ValueColumn));
    const std::vector<std::string> differing = field.differingFields();
    const QString leftOut = tr("(left out)");
    QString html;
    switch (chosen) {
    case Decision::Mine:
        html = itemText(field.mine, differing, leftOut);
        break;
    case Decision::Theirs:
        html = itemText(field.theirs, differing, leftOut);
        break;
    case Decision::Both:
        html = itemText(field.mine, differing, leftOut) + QStringLiteral("<hr>")
               + itemText(field.theirs, differing, leftOut);
        break;
    case Decision::Base:
    case Decision::OwnValue:
        html = itemText(field.base, differing, leftOut);
        break;
    }
    kept->setText(html);
    // Both items take more lines than one: the row grows, and the dialog with it while the screen has room.
    if (m_fitted) {
        const int before = m_fields->rowHeight(row);
        fitRow(row);
        growBy(m_fields->rowHeight(row) - before);
    }
    kept->setAccessibleName(tr("%1 keeps: %2")
                                .arg(m_fields->item(row, FieldColumn)->text(),
                                     QTextDocumentFragment::fromHtml(html).toPlainText()));
}

void ConflictDialog::decide(int row, Decision decision, const QString &ownValue)
{
    auto *combo = qobject_cast<QComboBox *>(m_fields->cellWidget(row, DecisionColumn));
    combo->setCurrentIndex(combo->findData(static_cast<int>(decision)));
    if (decision == Decision::OwnValue)
        qobject_cast<QLineEdit *>(m_fields->cellWidget(row, ValueColumn))->setText(ownValue);
    m_byField->setChecked(true);
}

void ConflictDialog::showEvent(QShowEvent *event)
{
    if (m_fitted || event->spontaneous()) {
        QDialog::showEvent(event);
        return;
    }
    m_fitted = true;
    // Sized before QDialog places it over its parent, so that it is placed at the size it opens with.
    fitToScreen();
    QDialog::showEvent(event);
    // QDialog keeps the left frame inside the screen but not the right one: a dialog as wide as the
    // screen would stick out by that frame.
    const QRect available = availableArea();
    const QRect frame = frameGeometry();
    if (!available.contains(frame))
        move(std::clamp(frame.left(), available.left(),
                        std::max(available.left(), available.right() - frame.width() + 1)),
             std::clamp(frame.top(), available.top(),
                        std::max(available.top(), available.bottom() - frame.height() + 1)));
}

QRect ConflictDialog::availableArea() const
{
    const QScreen *screen = parentWidget() != nullptr ? parentWidget()->window()->screen() : this->screen();
    return screen->availableGeometry();
}

void ConflictDialog::fitToScreen()
{
    // Its frame is known only once it is on screen; until then the parent's is the best guess.
    QMargins frame = windowHandle() != nullptr ? windowHandle()->frameMargins() : QMargins();
    if (frame.isNull() && parentWidget() != nullptr) {
        const QWidget *top = parentWidget()->window();
        const QRect inner = top->geometry();
        const QRect outer = top->frameGeometry();
        frame = QMargins(inner.left() - outer.left(), inner.top() - outer.top(),
                         outer.right() - inner.right(), outer.bottom() - inner.bottom());
    }
    const QRect available = availableArea();
    const int widest = available.width() - frame.left() - frame.right();
    const int tallest = available.height() - frame.top() - frame.bottom();
    const QMargins margins = layout()->contentsMargins();
    // Around the table's viewport: the dialog's margins, the table's frame, room for a vertical scroll bar.
    const int chrome = margins.left() + margins.right() + 2 * m_fields->frameWidth()
                       + m_fields->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, m_fields);
    int columns = 0;
    for (int column = 0; column < m_fields->columnCount(); ++column)
        columns += m_fields->horizontalHeader()->sectionSize(column);
    // Whole documents side by side (a delete against an edit) want the width the dialog always had.
    const bool byField = m_fields->isVisibleTo(this);
    const int least = byField ? 720 : 900;
    const int width = std::clamp(std::max(byField ? columns + chrome : 0, least),
                                 std::min(minimumSizeHint().width(), widest), widest);
    if (byField)
        fitColumns(width - chrome);
    int rows = m_fields->horizontalHeader()->sizeHint().height() + 2 * m_fields->frameWidth();
    for (int row = 0; row < m_fields->rowCount(); ++row)
        rows += m_fields->rowHeight(row);
    const int others = layout()->totalHeightForWidth(width) - (byField ? m_fields->sizeHint().height() : 0);
    const int height = byField ? others + rows : std::max(others, 480);
    resize(width, std::clamp(height, std::min(minimumSizeHint().height(), tallest), tallest));
}

void ConflictDialog::fitColumns(int viewportWidth)
{
    QHeaderView *header = m_fields->horizontalHeader();
    int total = 0;
    for (int column = 0; column < m_fields->columnCount(); ++column)
        total += header->sectionSize(column);
    int excess = total - viewportWidth;
    if (excess > 0) {
        // What gives up room is what wraps: the field's name, the versions and the kept value; the
        // choice keeps its width.
        const int narrowest = fontMetrics().averageCharWidth() * 12;
        int shrinkable = 0;
        for (int column : {FieldColumn, BaseColumn, MineColumn, TheirsColumn, ValueColumn})
            shrinkable += std::max(0, header->sectionSize(column) - narrowest);
        for (int column : {FieldColumn, BaseColumn, MineColumn, TheirsColumn, ValueColumn}) {
            const int spare = std::max(0, header->sectionSize(column) - narrowest);
            if (shrinkable > 0)
                m_fields->setColumnWidth(column, header->sectionSize(column)
                                                     - (excess * spare + shrinkable - 1) / shrinkable);
        }
    }
    fitRows();
}

void ConflictDialog::growBy(int extra)
{
    if (extra <= 0 || !isVisible())
        return;
    const QRect available = availableArea();
    const int frame = frameGeometry().height() - height();
    const int height = std::min(this->height() + extra, available.height() - frame);
    if (height <= this->height())
        return;
    resize(width(), height);
    if (frameGeometry().bottom() > available.bottom())
        move(x(), std::max(available.top(), available.bottom() - frameGeometry().height() + 1));
}

void ConflictDialog::fitRows()
{
    for (int row = 0; row < m_fields->rowCount(); ++row)
        fitRow(row);
}

// Measured here rather than by resizeRowToContents, which measures only the columns inside the
// viewport, and before the dialog first shows its viewport has not its size yet.
void ConflictDialog::fitRow(int row)
{
    int height = 0;
    for (int column = 0; column < m_fields->columnCount(); ++column) {
        const int width = m_fields->columnWidth(column);
        if (const QWidget *cell = m_fields->cellWidget(row, column)) {
            // A wrapped item's label is as tall as its width makes it.
            height = std::max(height, cell->hasHeightForWidth() ? cell->heightForWidth(width)
                                                                : cell->sizeHint().height());
            continue;
        }
        // Text wraps at the column's width, as the table draws it.
        QStyleOptionViewItem option;
        option.initFrom(m_fields->viewport());
        option.font = m_fields->font();
        option.rect = QRect(0, 0, width, QWIDGETSIZE_MAX);
        option.features |= QStyleOptionViewItem::WrapText;
        const QModelIndex index = m_fields->model()->index(row, column);
        height = std::max(height, m_fields->itemDelegateForIndex(index)->sizeHint(option, index).height());
    }
    m_fields->setRowHeight(row, height + (m_fields->showGrid() ? 1 : 0));
}

void ConflictDialog::decideWhole(std::optional<bool> mine)
{
    if (!mine)
        m_byField->setChecked(true);
    else
        (*mine ? m_wholeMine : m_wholeTheirs)->setChecked(true);
}

steward::ConflictDecision ConflictDialog::decisionFromWidgets() const
{
    steward::ConflictDecision decision;
    decision.id = m_conflict.conflict.id;
    decision.url = m_conflict.url;
    if (!m_byField->isChecked()) {
        decision.wholeDocument = true;
        decision.take = m_wholeMine->isChecked() ? steward::MergeChoice::mine() : steward::MergeChoice::theirs();
        return decision;
    }
    for (int row = 0; row < m_fields->rowCount(); ++row) {
        const std::string path = m_fields->item(row, FieldColumn)->data(Qt::UserRole).toString().toStdString();
        const int chosen = qobject_cast<QComboBox *>(m_fields->cellWidget(row, DecisionColumn))->currentData().toInt();
        if (chosen == static_cast<int>(Decision::Mine)) {
            decision.fields[path] = steward::MergeChoice::mine();
        } else if (chosen == static_cast<int>(Decision::Theirs)) {
            decision.fields[path] = steward::MergeChoice::theirs();
        } else if (chosen == static_cast<int>(Decision::Both)) {
            decision.fields[path] = steward::MergeChoice::both();
        } else if (chosen == static_cast<int>(Decision::Base)) {
            const steward::MergeConflict &field = m_conflict.fields[static_cast<std::size_t>(row)];
            decision.fields[path] = {steward::MergeChoice::Kind::Value,
                                     field.base ? *field.base : steward::Json(nullptr)};
        } else {
            // Typed as the form takes it: JSON where it is JSON (a number, true), text otherwise.
            const std::string text =
                qobject_cast<QLineEdit *>(m_fields->cellWidget(row, ValueColumn))->text().toStdString();
            steward::Json value = text.empty() ? steward::Json(nullptr) : steward::Json::parse(text, nullptr, false);
            if (value.is_discarded())
                value = text;
            decision.fields[path] = {steward::MergeChoice::Kind::Value, value};
        }
    }
    return decision;
}

bool ConflictDialog::apply()
{
    try {
        const steward::ConflictResolution resolution = steward::resolveConflict(m_session.engine(), decisionFromWidgets());
        m_opId = resolution.opId;
        m_session.announceEverythingChanged();
        Q_EMIT resolved(resolution.opId, QString::fromStdString(resolution.summary));
        return true;
    } catch (const steward::ConflictRefused &e) {
        m_error->setText(QString::fromStdString(e.what()) + tr(" Nothing was changed."));
    } catch (const std::exception &e) {
        m_error->setText(tr("The decision could not be stored: %1").arg(QString::fromStdString(e.what())));
    }
    m_error->show();
    return false;
}

QString ConflictDialog::error() const
{
    return m_error->isVisible() ? m_error->text() : QString();
}

bool openConflictDialog(AppSession &session, const std::string &id, const std::string &url, QWidget *parent)
{
    for (const steward::ConflictView &view : steward::listConflicts(session.engine())) {
        if (view.conflict.id != id || (!url.empty() && view.url != url))
            continue;
        ConflictDialog dialog(session, view, parent);
        return dialog.exec() == QDialog::Accepted;
    }
    return false;
}

QString conflictSummary(const steward::ConflictView &conflict, const steward::ResourceSchema *resource)
{
    using Kind = steward::SyncConflict::Kind;
    switch (conflict.conflict.kind) {
    case Kind::DeletedThere:
        return QObject::tr("deleted there, changed here");
    case Kind::DeletedHere:
        return QObject::tr("deleted here, changed there");
    case Kind::Refused:
        return QObject::tr("changed on both sides, and the two together are refused here (%1)")
            .arg(QString::fromStdString(conflict.conflict.reason));
    case Kind::EditedBoth:
        break;
    }
    QStringList fields;
    for (const steward::MergeConflict &field : conflict.fields)
        fields << conflictPathLabel(conflict, field, resource);
    return fields.isEmpty() ? QObject::tr("changed on both sides")
                            : QObject::tr("both changed %1").arg(fields.join(QStringLiteral(", ")));
}
