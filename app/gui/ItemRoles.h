#pragma once

#include <Qt>

// The item data role under which the dialogs' and panes' lists of documents keep each row's document
// id (what "Go to" and a double click open).
constexpr int kDocumentIdRole = Qt::UserRole + 1;
