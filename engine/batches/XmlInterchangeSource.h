#pragma once

#include "ApiSchema.h"
#include "ImportSource.h"

#include <QFile>
#include <QString>
#include <QXmlStreamReader>

#include <cstdint>
#include <string>
#include <vector>

namespace steward {

// What the interchange XML readers share: opening the file lazily, checking the root element and
// its namespace against the model's data standard version, walking the root's children one at a
// time, and ending the file on malformed XML. Subclasses read one top-level element into an item.
class XmlInterchangeSource : public ImportSource
{
public:
    XmlInterchangeSource(std::string path, const Model &model);

    // Opens only to find out whether the file is readable; the file is reopened on the first
    // next(), so a directory of many files does not hold them all open at once.
    bool open(std::string *error);

    bool next(ImportItem &item) final;
    std::uint64_t bytesRead() const final;
    std::uint64_t bytesTotal() const final;

protected:
    // "<InterchangeDescriptors>": what a wrong root element is told to be instead.
    virtual std::string expectedRoot() const = 0;
    // An interchange root with the right namespace: a non-empty text refuses the file with it.
    virtual std::string refuseRoot() const { return {}; }
    virtual void rootAccepted() {}
    // The reader is on a top-level start element. False when it yields no item.
    virtual bool readTopElement(ImportItem &item) = 0;
    // Items a subclass queued ahead of the reader (implied documents) go out first.
    virtual bool takeQueued(ImportItem &) { return false; }
    virtual void released() {}

    // "file.xml:12: <Element>: "
    std::string where(std::int64_t line, const QString &element) const;
    // QXmlStreamReader cannot go on after a well-formedness error, so this ends the file.
    void malformed(ImportItem &item, const QString &element, std::int64_t elementLine);

    const std::string m_path;
    const Model &m_model;
    QXmlStreamReader m_xml;
    QString m_rootName;
    QString m_rootNamespace;

private:
    enum class State
    {
        Start,
        InRoot,
        AfterRoot,
        Done
    };

    // True when the root itself is reported (and the file ends).
    bool readRoot(ImportItem &item);
    void finish();

    QFile m_file;
    State m_state = State::Start;
    std::uint64_t m_size = 0;
    std::vector<QString> m_expectedNamespaces;
};

} // namespace steward
