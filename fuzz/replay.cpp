// Replays inputs through the fuzz harnesses without libFuzzer, in the normal build:
//
//     steward-fuzz-replay HARNESS PATH...
//
// runs HARNESS once on every file under each PATH (folders recursively, names starting with '.'
// and README files skipped), so the seed corpora and the crashing inputs kept in
// fuzz/regressions/ are tests. A path that does not exist is skipped (a harness may have no
// regressions yet); finding no input at all is an error, so a wrong path cannot pass silently.
#include "FuzzSupport.h"

#include <QDirIterator>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

using namespace steward;

namespace {

bool isInput(const QFileInfo &info)
{
    const QString name = info.fileName();
    return !name.startsWith(QLatin1Char('.')) && !name.startsWith(QLatin1String("README"));
}

std::vector<QString> inputsUnder(const QString &path)
{
    std::vector<QString> files;
    const QFileInfo info(path);
    if (info.isFile()) {
        files.push_back(path);
    } else if (info.isDir()) {
        QDirIterator it(path, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString file = it.next();
            if (isInput(QFileInfo(file)))
                files.push_back(file);
        }
        std::sort(files.begin(), files.end());
    }
    return files;
}

int usage()
{
    std::fprintf(stderr, "usage: steward-fuzz-replay HARNESS PATH...\nharnesses:");
    for (const auto &[name, entry] : fuzz::targets())
        std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, "\n");
    return 2;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 3)
        return usage();
    auto target = fuzz::targets().find(argv[1]);
    if (target == fuzz::targets().end())
        return usage();

    std::size_t replayed = 0;
    for (int i = 2; i < argc; ++i) {
        const QString path = QString::fromLocal8Bit(argv[i]);
        if (!QFileInfo::exists(path)) {
            std::printf("%s: %s does not exist; skipped\n", argv[1], argv[i]);
            continue;
        }
        for (const QString &file : inputsUnder(path)) {
            QFile in(file);
            if (!in.open(QIODevice::ReadOnly)) {
                std::fprintf(stderr, "%s: cannot be read\n", qPrintable(file));
                return 1;
            }
            const QByteArray bytes = in.readAll();
            fuzz::setCurrentInput(file.toStdString());
            try {
                target->second(reinterpret_cast<const std::uint8_t *>(bytes.constData()),
                               static_cast<std::size_t>(bytes.size()));
            } catch (const std::exception &e) {
                std::fprintf(stderr, "FUZZ FINDING: uncaught exception: %s\n  input: %s\n", e.what(),
                             qPrintable(file));
                return 1;
            } catch (...) {
                std::fprintf(stderr, "FUZZ FINDING: uncaught exception of unknown type\n  input: %s\n",
                             qPrintable(file));
                return 1;
            }
            ++replayed;
        }
    }
    if (replayed == 0) {
        std::fprintf(stderr, "%s: no inputs found under the given paths\n", argv[1]);
        return 1;
    }
    std::printf("%s: %zu inputs replayed\n", argv[1], replayed);
    return 0;
}
