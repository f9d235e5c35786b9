#include "DocumentEditorParts.h"

#include "FieldLabels.h"
#include "JsonDiff.h"
#include "JsonHighlighter.h"
#include "SchemaForm.h"

#include <QApplication>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QRegularExpression>
#include <QScopedValueRollback>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTextBlock>
#include <QTimer>
#include <QToolButton>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>

// The editor's widgets: titles, the Form and JSON tabs, the problems panel, the buttons.

using namespace editorparts;

void DocumentEditor::Private::buildUi()
{
    auto *layout = new QVBoxLayout(q);
    layout->setContentsMargins(12, 10, 12, 10);
    layout->setSpacing(8);

    layout->addLayout(buildTitles());

    tabs = new QTabWidget;
    tabs->setObjectName(QStringLiteral("tabs"));
    tabs->setDocumentMode(true);

    QWidget *formPage = buildFormPage();
    tabs->addTab(formPage, tr("Form"));

    buildJsonEdit();
    tabs->addTab(jsonEdit, tr("JSON"));

    QWidget *historyPage = buildHistoryPage();
    tabs->addTab(historyPage, tr("History"));

    QWidget *problemsPanel = buildProblemsPanel();

    auto *split = new QSplitter(Qt::Vertical);
    split->setObjectName(QStringLiteral("editorSplitter"));
    split->setChildrenCollapsible(false);
    split->addWidget(tabs);
    split->addWidget(problemsPanel);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    split->setSizes({560, 120});
    layout->addWidget(split, 1);

    layout->addLayout(buildButtonRow());

    q->setStyleSheet(QStringLiteral(
        "QLabel#subtitleLabel { color: #666666; }"
        "QLabel#formBanner { background: #fff4e5; border: 1px solid #f0c36d; border-radius: 4px; padding: 6px; }"
        "QLabel#changedNotice { background: #fdecea; border: 1px solid #e6a19a; border-radius: 4px; padding: 6px; }"
        "QLabel#draftNote { background: #eef3fb; border: 1px solid #b9cbe8; border-radius: 4px; padding: 6px; }"
        "QLabel#problemsSummary[state=\"ok\"] { color: #2e7d32; }"
        "QLabel#problemsSummary[state=\"error\"] { color: #b71c1c; font-weight: 600; }"
        "QLabel#problemsSummary[state=\"info\"] { color: #555555; }"));
}

QVBoxLayout *DocumentEditor::Private::buildTitles()
{
    // A long natural key (an association's) is cut rather than widening the window past the screen.
    header = new ElidedLabel;
    header->setObjectName(QStringLiteral("headerLabel"));
    QFont headerFont = header->font();
    headerFont.setPointSizeF(headerFont.pointSizeF() * 1.3);
    headerFont.setBold(true);
    header->setFont(headerFont);
    subtitle = new QLabel;
    subtitle->setObjectName(QStringLiteral("subtitleLabel"));
    subtitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // How the document stands (no problems, ready to save, n problems) sits on the title's line, so
    // that with nothing to list the problems take no room of their own.
    summary = new ElidedLabel;
    summary->setObjectName(QStringLiteral("problemsSummary"));
    summary->setTextFormat(Qt::PlainText);
    summary->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    auto *headerRow = new QHBoxLayout;
    headerRow->addWidget(header, 3);
    headerRow->addWidget(summary, 1);
    auto *titles = new QVBoxLayout;
    titles->setSpacing(2);
    titles->addLayout(headerRow);
    titles->addWidget(subtitle);
    changedNotice = new QLabel;
    changedNotice->setObjectName(QStringLiteral("changedNotice"));
    changedNotice->setWordWrap(true);
    changedNotice->setTextFormat(Qt::RichText);
    changedNotice->hide();
    QObject::connect(changedNotice, &QLabel::linkActivated, q, [this](const QString &link) { followChangedNotice(link); });
    titles->addWidget(changedNotice);
    return titles;
}

QWidget *DocumentEditor::Private::buildFormPage()
{
    auto *formPage = new QWidget;
    auto *formLayout = new QVBoxLayout(formPage);
    formLayout->setContentsMargins(0, 6, 0, 0);
    formLayout->setSpacing(6);
    formBanner = new QLabel;
    formBanner->setObjectName(QStringLiteral("formBanner"));
    formBanner->setWordWrap(true);
    formBanner->hide();
    formLayout->addWidget(formBanner);
    form = new SchemaForm(session);
    form->setObjectName(QStringLiteral("schemaForm"));
    scroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("formScroll"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(form);
    formLayout->addWidget(scroll, 1);
    return formPage;
}

void DocumentEditor::Private::buildJsonEdit()
{
    jsonEdit = new QPlainTextEdit;
    jsonEdit->setObjectName(QStringLiteral("jsonEdit"));
    jsonEdit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    jsonEdit->setLineWrapMode(QPlainTextEdit::NoWrap);
    jsonEdit->setTabStopDistance(QFontMetricsF(jsonEdit->font()).horizontalAdvance(QLatin1Char(' ')) * 2);
    jsonEdit->setUndoRedoEnabled(false); // the editor's undo stack covers both views
    highlighter = new JsonHighlighter(jsonEdit->document());
}

QWidget *DocumentEditor::Private::buildProblemsPanel()
{
    auto *problemsPanel = new QWidget;
    auto *problemsLayout = new QVBoxLayout(problemsPanel);
    problemsLayout->setContentsMargins(0, 4, 0, 0);
    problemsLayout->setSpacing(4);
    draftNote = new QLabel;
    draftNote->setObjectName(QStringLiteral("draftNote"));
    draftNote->setWordWrap(true);
    draftNote->hide();
    problems = new QListWidget;
    problems->setObjectName(QStringLiteral("problemsList"));
    problems->setAccessibleName(tr("Problems of this document"));
    problems->setWordWrap(true);
    problems->setUniformItemSizes(false);
    problems->setMinimumHeight(60);
    problems->setIconSize(QSize(16, 16));
    problems->setSpacing(1);
    problemsLayout->addWidget(draftNote);
    problemsLayout->addWidget(problems, 1);
    // With no problems (and no draft to tell about) the panel takes no height: the summary line
    // beside the buttons says so.
    panel = problemsPanel;
    panel->hide();
    return problemsPanel;
}

QHBoxLayout *DocumentEditor::Private::buildButtonRow()
{
    auto *buttons = new QHBoxLayout;
    buttons->setSpacing(6);
    undoButton = new QToolButton;
    undoButton->setObjectName(QStringLiteral("undoButton"));
    undoButton->setText(tr("Undo"));
    undoButton->setEnabled(false);
    redoButton = new QToolButton;
    redoButton->setObjectName(QStringLiteral("redoButton"));
    redoButton->setText(tr("Redo"));
    redoButton->setEnabled(false);
    revertButton = new QPushButton(tr("Revert"));
    revertButton->setObjectName(QStringLiteral("revertButton"));
    revertButton->setToolTip(tr("Load the stored version again (undoable)"));
    draftButton = new QPushButton(tr("Save as draft"));
    draftButton->setObjectName(QStringLiteral("draftButton"));
    draftButton->setToolTip(tr("Keep the text as it is, problems and all, to finish later"));
    saveButton = new QPushButton(tr("Save"));
    saveButton->setObjectName(QStringLiteral("saveButton"));
    saveButton->setToolTip(tr("Store the document (Ctrl+S); enabled when the engine would accept it"));
    saveButton->setDefault(true);
    for (QPushButton *button : {revertButton, draftButton, saveButton})
        button->setAutoDefault(false);
    buttons->addWidget(undoButton);
    buttons->addWidget(redoButton);
    buttons->addStretch(1);
    buttons->addWidget(revertButton);
    buttons->addWidget(draftButton);
    buttons->addWidget(saveButton);
    return buttons;
}
