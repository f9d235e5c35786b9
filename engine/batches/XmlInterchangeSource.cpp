#include "XmlInterchangeSource.h"

#include "XmlText.h"

#include <algorithm>

namespace steward {

XmlInterchangeSource::XmlInterchangeSource(std::string path, const Model &model)
    : m_path(std::move(path))
    , m_model(model)
    , m_file(QString::fromStdString(m_path))
{
    // Interchange files carry the data standard's version in their namespace: http://ed-fi.org/5.1.0.
    for (const auto &project : model.projects())
        if (!project->isExtensionProject && !project->projectVersion.empty())
            m_expectedNamespaces.push_back(QStringLiteral("http://ed-fi.org/")
                                           + QString::fromStdString(project->projectVersion));
}

bool XmlInterchangeSource::open(std::string *error)
{
    if (!m_file.open(QIODevice::ReadOnly)) {
        *error = m_path + ": cannot be read: " + m_file.errorString().toStdString();
        return false;
    }
    m_size = static_cast<std::uint64_t>(m_file.size());
    m_file.close();
    return true;
}

bool XmlInterchangeSource::next(ImportItem &item)
{
    item = ImportItem{};
    item.file = m_path;
    if (takeQueued(item))
        return true;
    if (m_state == State::Done)
        return false;
    if (m_state == State::Start) {
        if (!m_file.open(QIODevice::ReadOnly)) {
            item.error = m_path + ": cannot be read: " + m_file.errorString().toStdString();
            finish();
            return true;
        }
        m_size = static_cast<std::uint64_t>(m_file.size());
        m_xml.setDevice(&m_file);
        if (readRoot(item))
            return true;
    }
    while (m_state == State::InRoot) {
        switch (m_xml.readNext()) {
        case QXmlStreamReader::StartElement:
            if (readTopElement(item))
                return true;
            break;
        case QXmlStreamReader::EndElement:
            m_state = State::AfterRoot;
            break;
        case QXmlStreamReader::Characters:
            if (!m_xml.isWhitespace()) {
                item.line = m_xml.lineNumber();
                item.error = where(item.line, m_rootName) + "text outside any element: "
                             + quoted(trimXmlSpace(m_xml.text().toString()).toStdString());
                return true;
            }
            break;
        case QXmlStreamReader::Invalid:
            malformed(item, {}, 0);
            return true;
        default:
            break; // comments, processing instructions
        }
    }
    if (m_state == State::AfterRoot) {
        // Reading on to the end finds anything malformed after the root, such as a second root.
        while (!m_xml.atEnd())
            m_xml.readNext();
        if (m_xml.hasError()) {
            malformed(item, {}, 0);
            return true;
        }
        finish();
    }
    return false;
}

std::uint64_t XmlInterchangeSource::bytesRead() const
{
    if (m_state == State::Done)
        return m_size;
    return m_file.isOpen() ? static_cast<std::uint64_t>(m_file.pos()) : 0;
}

std::uint64_t XmlInterchangeSource::bytesTotal() const
{
    return m_size;
}

std::string XmlInterchangeSource::where(std::int64_t line, const QString &element) const
{
    return m_path + ":" + std::to_string(line) + ": <" + element.toStdString() + ">: ";
}

void XmlInterchangeSource::finish()
{
    m_state = State::Done;
    m_xml.setDevice(nullptr);
    m_file.close();
    released();
}

void XmlInterchangeSource::malformed(ImportItem &item, const QString &element, std::int64_t elementLine)
{
    item.body.reset();
    item.line = m_xml.lineNumber();
    std::string reason = m_xml.errorString().toStdString();
    if (!reason.empty() && reason.back() == '.')
        reason.pop_back(); // more text follows
    item.error = m_path + ":" + std::to_string(item.line) + ": malformed XML: " + reason;
    if (!element.isEmpty())
        item.error +=
            " (in <" + element.toStdString() + "> that starts on line " + std::to_string(elementLine) + ")";
    item.error += "; the rest of the file is not read";
    finish();
}

bool XmlInterchangeSource::readRoot(ImportItem &item)
{
    while (m_xml.readNext() != QXmlStreamReader::StartElement) {
        if (m_xml.hasError()) {
            malformed(item, {}, 0);
            return true;
        }
        if (m_xml.atEnd()) {
            item.error = m_path + ": no root element; the file holds no XML document";
            finish();
            return true;
        }
    }
    m_rootName = m_xml.name().toString();
    m_rootNamespace = m_xml.namespaceUri().toString();
    item.line = m_xml.lineNumber();
    if (!m_rootName.startsWith(QLatin1String("Interchange"))) {
        item.error = where(item.line, m_rootName) + "the root element is not an Ed-Fi interchange (expected "
                     + expectedRoot() + ")";
        finish();
        return true;
    }
    if (const std::string refusal = refuseRoot(); !refusal.empty()) {
        item.error = where(item.line, m_rootName) + refusal;
        finish();
        return true;
    }
    if (!m_expectedNamespaces.empty()
        && std::find(m_expectedNamespaces.begin(), m_expectedNamespaces.end(), m_rootNamespace)
               == m_expectedNamespaces.end()) {
        item.error = where(item.line, m_rootName) + "XML namespace "
                     + (m_rootNamespace.isEmpty() ? std::string("(none)") : quoted(m_rootNamespace.toStdString()))
                     + ", expected " + quoted(m_expectedNamespaces.front().toStdString()) + " for "
                     + m_model.describe() + "; the file is not read";
        finish();
        return true;
    }
    m_state = State::InRoot;
    rootAccepted();
    return false;
}

} // namespace steward
