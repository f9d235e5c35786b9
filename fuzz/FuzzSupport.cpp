#include "FuzzSupport.h"

#include <QDir>
#include <QTemporaryDir>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>

namespace steward::fuzz {

namespace {

std::map<std::string, Entry> &registry()
{
    static std::map<std::string, Entry> entries;
    return entries;
}

std::string &currentInput()
{
    static std::string path;
    return path;
}

// Strict UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.
bool isValidUtf8(std::string_view text)
{
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        std::size_t length = 0;
        std::uint32_t code = 0;
        if (c < 0x80) {
            ++i;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            length = 2;
            code = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            length = 3;
            code = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            length = 4;
            code = c & 0x07;
        } else {
            return false;
        }
        if (i + length > text.size())
            return false;
        for (std::size_t k = 1; k < length; ++k) {
            const auto next = static_cast<unsigned char>(text[i + k]);
            if ((next & 0xc0) != 0x80)
                return false;
            code = code << 6 | (next & 0x3f);
        }
        if ((length == 3 && (code < 0x800 || (code >= 0xd800 && code <= 0xdfff)))
            || (length == 4 && (code < 0x10000 || code > 0x10ffff)))
            return false;
        i += length;
    }
    return true;
}

} // namespace

bool registerTarget(const char *name, Entry entry)
{
    registry()[name] = entry;
    return true;
}

const std::map<std::string, Entry> &targets()
{
    return registry();
}

const Model &starterModel()
{
    static const std::unique_ptr<Model> model = Model::loadStarter();
    return *model;
}

const std::string &scratchDir()
{
    static QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/steward-fuzz-XXXXXX"));
    static const std::string path = dir.path().toStdString();
    if (!dir.isValid())
        fail("cannot create a scratch folder under " + QDir::tempPath().toStdString());
    return path;
}

void writeFile(const std::string &path, std::string_view bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out)
        fail("cannot write " + path);
}

std::string_view bytesOf(const std::uint8_t *data, std::size_t size)
{
    return std::string_view(reinterpret_cast<const char *>(data), size);
}

void importAsFolder(const std::string &folder, const std::vector<std::string> &fileNames,
                    const std::uint8_t *data, std::size_t size)
{
    const std::string dir = scratchDir() + "/" + folder;
    QDir().mkpath(QString::fromStdString(dir));
    for (const std::string &name : fileNames)
        writeFile(dir + "/" + name, bytesOf(data, size));
    std::string error;
    std::unique_ptr<ImportSource> source = openImportSource(dir, starterModel(), &error);
    if (!source)
        fail("the folder could not be opened: " + error);
    readAll(*source, size);
}

std::size_t readAll(ImportSource &source, std::size_t inputBytes)
{
    // Every item consumes at least one byte of some file (a line, an array element, an element);
    // each input is written to at most two files, and a file can end with one error item.
    const std::size_t bound = 2 * inputBytes + 4;
    std::size_t count = 0;
    ImportItem item;
    while (source.next(item)) {
        if (++count > bound)
            fail("the reader handed out more than " + std::to_string(bound) + " items for "
                 + std::to_string(inputBytes) + " bytes of input");
        if (item.body.has_value() == !item.error.empty())
            fail("an item must carry a body or an error, not " + std::string(item.body ? "both" : "neither")
                 + "; error: '" + item.error + "'");
        if (item.file.empty())
            fail("an item names no file");
        if (!isValidUtf8(item.error))
            fail("an item's error text is not valid UTF-8: " + item.error);
        if (item.body) {
            try {
                (void)item.body->dump(); // the strict serializer throws on invalid UTF-8
            } catch (const Json::type_error &e) {
                fail(std::string("an item's body is not valid UTF-8: ") + e.what());
            }
        }
        if (source.bytesTotal() > 0 && source.bytesRead() > source.bytesTotal())
            fail("progress " + std::to_string(source.bytesRead()) + " passed the total "
                 + std::to_string(source.bytesTotal()));
    }
    return count;
}

void setCurrentInput(const std::string &path)
{
    currentInput() = path;
}

void fail(const std::string &what)
{
    std::fprintf(stderr, "FUZZ FINDING: %s\n", what.c_str());
    if (!currentInput().empty())
        std::fprintf(stderr, "  input: %s\n", currentInput().c_str());
    std::fflush(stderr);
    std::abort();
}

} // namespace steward::fuzz
