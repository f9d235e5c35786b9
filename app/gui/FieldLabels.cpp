#include "FieldLabels.h"

#include <QObject>
#include <QRegularExpression>
#include <QStringList>

QString humanize(const std::string &name)
{
    if (name == "_ext")
        return QObject::tr("Extensions");
    const QString text = QString::fromStdString(name);
    QStringList words;
    QString word;
    for (int i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        const bool boundary = c.isUpper() && !word.isEmpty()
                              && (word.back().isLower() || word.back().isDigit()
                                  || (i + 1 < text.size() && text.at(i + 1).isLower() && word.back().isUpper()));
        if (boundary || c == u'_') {
            if (!word.isEmpty())
                words << word;
            word.clear();
            if (c == u'_')
                continue;
        }
        word += c;
    }
    if (!word.isEmpty())
        words << word;
    for (int i = 0; i < words.size(); ++i) {
        QString &w = words[i];
        const bool acronym = w.size() > 1 && w == w.toUpper();
        if (!acronym)
            w = i == 0 ? w.left(1).toUpper() + w.mid(1) : w.toLower();
    }
    return words.join(u' ');
}

QString withoutSuffix(QString label, const QString &suffix)
{
    if (label.endsWith(suffix, Qt::CaseInsensitive) && label.size() > suffix.size())
        label.chop(static_cast<int>(suffix.size()));
    return label.trimmed();
}

QString fieldLabel(const std::string &property)
{
    return withoutSuffix(humanize(property), QStringLiteral("descriptor"));
}

QString singularLabel(const std::string &collection)
{
    const QString text = humanize(collection);
    if (text.endsWith(QLatin1String("ies")))
        return text.chopped(3) + u'y';
    for (const char *ending : {"sses", "xes", "ches", "shes"})
        if (text.endsWith(QLatin1String(ending)))
            return text.chopped(2);
    if (text.endsWith(u's') && !text.endsWith(QLatin1String("ss")))
        return text.chopped(1);
    return text;
}

QString pathLabel(const std::string &path)
{
    QStringList parts;
    const QString text = QString::fromStdString(path.rfind("$.", 0) == 0 ? path.substr(2) : path);
    static const QRegularExpression step(QStringLiteral("^([^\\[]*)((?:\\[\\d+\\])*)$"));
    static const QRegularExpression index(QStringLiteral("\\[(\\d+)\\]"));
    for (const QString &segment : text.split(QLatin1Char('.'), Qt::SkipEmptyParts)) {
        const QRegularExpressionMatch match = step.match(segment);
        QString part = fieldLabel(match.captured(1).toStdString());
        QRegularExpressionMatchIterator items = index.globalMatch(match.captured(2));
        while (items.hasNext())
            part += QLatin1Char(' ') + QString::number(items.next().captured(1).toInt() + 1);
        parts << part;
    }
    return parts.join(QStringLiteral(" › "));
}
