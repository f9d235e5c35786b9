#pragma once

#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct sqlite3;

namespace steward {

// A zstd dictionary trained on one resource's documents, kept in body_dictionaries. Its id is the
// one zstd writes into every frame made with it (derived from its content).
struct BodyDictionary;
struct IndexKeyMemo;

// How document text is stored: as it is (TEXT), or, once its resource has a dictionary, as a zstd
// frame made with it (BLOB). Ed-Fi documents of one resource repeat their property names, descriptor
// namespaces and many values; a dictionary trained on a few hundred of them makes a document about
// a sixth of its size, where zstd alone does not halve it.
//
// Reading needs no codec object: every connection Database::open makes has the SQL function
// steward_text(x), which gives a TEXT as it is and a BLOB decompressed (dictionaries are read from
// the connection when first met). Writers hold one codec per database, which knows the dictionaries,
// samples the texts of resources without one, and trains one when enough are there.
class BodyCodec
{
public:
    explicit BodyCodec(SQLite::Database &db);
    ~BodyCodec();
    BodyCodec(const BodyCodec &) = delete;
    BodyCodec &operator=(const BodyCodec &) = delete;

    // The dictionary of the resource, or null. Any thread.
    std::shared_ptr<const BodyDictionary> dictionaryOf(const std::string &project, const std::string &resource) const;
    // The stored form of text made with the dictionary: a zstd frame. Any thread.
    static std::string compress(const BodyDictionary &dictionary, std::string_view text);
    static std::uint32_t idOf(const BodyDictionary &dictionary);
    // A stored frame made without a dictionary (zstd alone), which steward_text reads too. Any thread.
    static std::string compressAlone(std::string_view text);

    // History versions kept against the version written after them (as Fossil and RCS keep theirs):
    // a zstd frame made with the next version's text as its prefix, tens of bytes where an edit
    // changed a field. Such a delta keeps zstd's magic number, which no stored frame has, so a
    // reader tells the two apart. steward_version_text(body, seq, id_key) reads a change-log
    // entry's text either way; steward_delta_of(stored, next_text) makes the delta when it is smaller.
    static bool isDelta(std::string_view stored);
    static std::string deltaAgainst(std::string_view text, std::string_view next);
    // Throws std::runtime_error when the delta was not made against `next`'s bytes.
    static std::string textFromDelta(std::string_view delta, std::string_view next);

    // What the edit journal keeps (EditJournal, and migration 30 for older journals): a text's
    // stored frame (with `codec`'s dictionary for the resource when it has one, zstd alone
    // otherwise), or a delta against the text next to it, each only when smaller than the text;
    // nullopt when the text itself is smaller.
    static std::optional<std::string> frameIfSmaller(const BodyCodec *codec, const std::string &project,
                                                     const std::string &resource, std::string_view text);
    static std::optional<std::string> deltaIfSmaller(std::string_view text, std::string_view next);

    // Writer: keeps the text as a sample of its resource (which has no dictionary); once enough are
    // kept, trains a dictionary from them and answers it (the caller stores it, see store()), else null.
    std::shared_ptr<const BodyDictionary> sample(const std::string &project, const std::string &resource,
                                                 std::string_view text);
    // Writer: makes sure the dictionary's row is in body_dictionaries, inside the caller's transaction.
    void store(const BodyDictionary &dictionary);

    // Registers steward_text(x) on a connection, and steward_text_or_null(x), NULL where steward_text
    // fails; their dictionaries are read through that connection.
    // A writer's connection passes its IndexKeyMemo, whose identity it answers without decoding.
    static void registerTextFunction(SQLite::Database &db, const IndexKeyMemo *memo = nullptr);

    // A dictionary needs this many samples of its resource.
    static constexpr int kSamplesToTrain = 500;

private:
    SQLite::Database &m_db;
    mutable std::shared_mutex m_mutex;
    std::map<std::pair<std::string, std::string>, std::shared_ptr<const BodyDictionary>> m_byResource;
    std::map<std::pair<std::string, std::string>, std::vector<std::string>> m_samples;
};

} // namespace steward
