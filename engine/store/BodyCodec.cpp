#include "BodyCodec.h"

#include "IndexKeyMemo.h"

#include <SQLiteCpp/Statement.h>
#include <sqlite3.h>

#define ZSTD_STATIC_LINKING_ONLY // the frame format without its magic number, and frame headers
#define ZDICT_STATIC_LINKING_ONLY // fastCover training with set parameters
#include <zdict.h>
#include <zstd.h>

#include <QDateTime>

#include <mutex>
#include <stdexcept>
#include <unordered_map>

namespace steward {

struct BodyDictionary
{
    std::uint32_t id = 0;
    std::string project;
    std::string resource;
    std::string bytes;
    ZSTD_CDict *compress = nullptr;
    ZSTD_DDict *decompress = nullptr;

    BodyDictionary(std::string dictionaryBytes, std::string projectName, std::string resourceName)
        : project(std::move(projectName))
        , resource(std::move(resourceName))
        , bytes(std::move(dictionaryBytes))
    {
        id = ZDICT_getDictID(bytes.data(), bytes.size());
        // Level 3, zstd's default: measured here, level 1 made documents 8% larger for 10% less time.
        compress = ZSTD_createCDict(bytes.data(), bytes.size(), 3);
        decompress = ZSTD_createDDict(bytes.data(), bytes.size());
    }
    ~BodyDictionary()
    {
        ZSTD_freeCDict(compress);
        ZSTD_freeDDict(decompress);
    }
    BodyDictionary(const BodyDictionary &) = delete;
    BodyDictionary &operator=(const BodyDictionary &) = delete;
};

namespace {

// The dictionary these bytes make, or null when they are not a zstd dictionary.
std::shared_ptr<const BodyDictionary> dictionaryFrom(std::string bytes, std::string project, std::string resource)
{
    auto dictionary = std::make_shared<const BodyDictionary>(std::move(bytes), std::move(project), std::move(resource));
    if (dictionary->id == 0 || dictionary->compress == nullptr || dictionary->decompress == nullptr)
        return nullptr;
    return dictionary;
}

// Samples bigger than this are not taken (a dictionary is for the many small documents).
constexpr std::size_t kLargestSample = 16 * 1024;
constexpr std::size_t kDictionaryCapacity = 16 * 1024;

// zstd's own contexts, one per thread: making one costs more than compressing a document.
ZSTD_CCtx *compressionContext()
{
    thread_local std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> context(ZSTD_createCCtx(), &ZSTD_freeCCtx);
    return context.get();
}

ZSTD_DCtx *decompressionContext()
{
    thread_local std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> context(
        [] {
            ZSTD_DCtx *created = ZSTD_createDCtx();
            ZSTD_DCtx_setParameter(created, ZSTD_d_format, ZSTD_f_zstd1_magicless);
            return created;
        }(),
        &ZSTD_freeDCtx);
    return context.get();
}

std::shared_ptr<const BodyDictionary> readDictionary(sqlite3 *db, std::uint32_t id)
{
    sqlite3_stmt *statement = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT dictionary, project, resource FROM body_dictionaries WHERE dict_id = ?", -1,
                           &statement, nullptr)
        != SQLITE_OK)
        return nullptr;
    std::shared_ptr<const BodyDictionary> found;
    sqlite3_bind_int64(statement, 1, id);
    if (sqlite3_step(statement) == SQLITE_ROW) {
        const auto *bytes = static_cast<const char *>(sqlite3_column_blob(statement, 0));
        const int size = sqlite3_column_bytes(statement, 0);
        found = dictionaryFrom(std::string(bytes, static_cast<std::size_t>(size)),
                               reinterpret_cast<const char *>(sqlite3_column_text(statement, 1)),
                               reinterpret_cast<const char *>(sqlite3_column_text(statement, 2)));
        if (found && found->id != id)
            found = nullptr;
    }
    sqlite3_finalize(statement);
    return found;
}

// The dictionaries one connection has met while reading, by id.
struct ReadDictionaries
{
    const IndexKeyMemo *memo = nullptr;
    std::mutex mutex;
    std::unordered_map<std::uint32_t, std::shared_ptr<const BodyDictionary>> byId;
};

// What one registration of the text function reads with. steward_text fails on a text it cannot read;
// steward_text_or_null answers NULL there instead, so that one such text does not end a scan over
// many (check reads that document again on its own to name the reason).
struct TextFunction
{
    std::shared_ptr<ReadDictionaries> cache;
    bool nullWhenUnreadable = false;
};

void failText(sqlite3_context *context, const std::string &message)
{
    if (static_cast<const TextFunction *>(sqlite3_user_data(context))->nullWhenUnreadable)
        sqlite3_result_null(context);
    else
        sqlite3_result_error(context, message.c_str(), -1);
}

// Decompresses a stored frame into memory from sqlite3_malloc64 (*text, *length; the caller frees it
// or hands it to SQLite), or answers why it cannot. A delta (a history version kept against the
// one after it) is not a stored frame: see versionTextFunction.
std::string readStoredFrame(sqlite3 *db, ReadDictionaries &cache, const char *frame, std::size_t size, char **text,
                            std::size_t *length)
{
    *text = nullptr;
    *length = 0;
    if (BodyCodec::isDelta(std::string_view(frame ? frame : "", frame ? size : 0)))
        return "a history version kept as a delta was read without the version after it";
    ZSTD_frameHeader header{};
    if (frame == nullptr || ZSTD_getFrameHeader_advanced(&header, frame, size, ZSTD_f_zstd1_magicless) != 0
        || header.frameContentSize == ZSTD_CONTENTSIZE_UNKNOWN || header.frameContentSize > (1u << 30))
        return "a stored document text is not a zstd frame Steward wrote";
    std::shared_ptr<const BodyDictionary> dictionary;
    if (header.dictID != 0) {
        std::lock_guard<std::mutex> lock(cache.mutex);
        auto it = cache.byId.find(header.dictID);
        if (it == cache.byId.end()) {
            dictionary = readDictionary(db, header.dictID);
            if (dictionary)
                cache.byId.emplace(header.dictID, dictionary);
        } else {
            dictionary = it->second;
        }
        if (!dictionary)
            return "a stored document text needs dictionary " + std::to_string(header.dictID)
                   + ", which body_dictionaries lacks";
    }
    const auto size64 = static_cast<std::size_t>(header.frameContentSize);
    char *decoded = static_cast<char *>(sqlite3_malloc64(size64 + 1));
    if (decoded == nullptr)
        return "out of memory";
    ZSTD_DCtx *decompression = decompressionContext();
    ZSTD_DCtx_refDDict(decompression, dictionary ? dictionary->decompress : nullptr);
    const std::size_t written = ZSTD_decompressDCtx(decompression, decoded, size64, frame, size);
    if (ZSTD_isError(written) || written != size64) {
        sqlite3_free(decoded);
        return std::string("a stored document text cannot be decompressed: ")
               + (ZSTD_isError(written) ? ZSTD_getErrorName(written) : "its length is wrong");
    }
    *text = decoded;
    *length = size64;
    return {};
}

// The text of any stored value into `text`: TEXT as it is, a stored frame decompressed; an error otherwise.
std::string readStoredValue(sqlite3 *db, ReadDictionaries &cache, sqlite3_value *value, std::string &text)
{
    if (sqlite3_value_type(value) != SQLITE_BLOB) {
        const auto *bytes = reinterpret_cast<const char *>(sqlite3_value_text(value));
        text.assign(bytes ? bytes : "", static_cast<std::size_t>(sqlite3_value_bytes(value)));
        return {};
    }
    char *decoded = nullptr;
    std::size_t length = 0;
    const std::string error = readStoredFrame(db, cache, static_cast<const char *>(sqlite3_value_blob(value)),
                                              static_cast<std::size_t>(sqlite3_value_bytes(value)), &decoded, &length);
    if (error.empty())
        text.assign(decoded, length);
    sqlite3_free(decoded);
    return error;
}

void textFunction(sqlite3_context *context, int, sqlite3_value **argv)
{
    sqlite3_value *value = argv[0];
    if (sqlite3_value_type(value) != SQLITE_BLOB) {
        sqlite3_result_value(context, value);
        return;
    }
    const auto *frame = static_cast<const char *>(sqlite3_value_blob(value));
    const auto size = static_cast<std::size_t>(sqlite3_value_bytes(value));
    ReadDictionaries *cache = static_cast<const TextFunction *>(sqlite3_user_data(context))->cache.get();
    if (const IndexKeyMemo *memo = cache->memo; memo && memo->known && frame != nullptr
        && std::string_view(frame, size) == memo->storedIdentity) {
        sqlite3_result_text64(context, memo->identityText.data(), memo->identityText.size(), SQLITE_TRANSIENT,
                              SQLITE_UTF8);
        return;
    }
    char *text = nullptr;
    std::size_t length = 0;
    const std::string error = readStoredFrame(sqlite3_context_db_handle(context), *cache, frame, size, &text, &length);
    if (!error.empty()) {
        failText(context, error);
        return;
    }
    sqlite3_result_text64(context, text, length, sqlite3_free, SQLITE_UTF8);
}

// One SQL statement prepared for one call of a function (the functions run on whatever connection
// asks, so nothing is kept between calls).
class CallStatement
{
public:
    CallStatement(sqlite3 *db, const char *sql)
    {
        if (sqlite3_prepare_v2(db, sql, -1, &m_statement, nullptr) != SQLITE_OK)
            m_statement = nullptr;
    }
    ~CallStatement() { sqlite3_finalize(m_statement); }
    CallStatement(const CallStatement &) = delete;
    CallStatement &operator=(const CallStatement &) = delete;
    sqlite3_stmt *get() const { return m_statement; }

private:
    sqlite3_stmt *m_statement = nullptr;
};

// The text of the version written after change-log entry `seq` of document `idKey`, walking further
// while versions are deltas; answers an error, or fills `text`.
std::string textOfVersionAfter(sqlite3 *db, ReadDictionaries &cache, sqlite3_value *idKey, std::int64_t seq,
                               std::string &text)
{
    // Deltas met on the way, each to be applied to the text after it (newest last).
    std::vector<std::string> deltas;
    CallStatement entryAfter(db, "SELECT seq, op, body FROM change_rows WHERE id = ?1 AND seq > ?2 ORDER BY seq LIMIT 1");
    CallStatement current(db, "SELECT change_seq, body FROM document_rows WHERE id = ?1");
    if (entryAfter.get() == nullptr || current.get() == nullptr)
        return std::string("cannot read the change log: ") + sqlite3_errmsg(db);
    sqlite3_bind_value(current.get(), 1, idKey);
    std::int64_t currentSeq = 0;
    if (sqlite3_step(current.get()) == SQLITE_ROW)
        currentSeq = sqlite3_column_int64(current.get(), 0);
    for (int steps = 0; steps < 1000000; ++steps) {
        sqlite3_reset(entryAfter.get());
        sqlite3_bind_value(entryAfter.get(), 1, idKey);
        sqlite3_bind_int64(entryAfter.get(), 2, seq);
        const bool hasEntry = sqlite3_step(entryAfter.get()) == SQLITE_ROW;
        const std::int64_t entrySeq = hasEntry ? sqlite3_column_int64(entryAfter.get(), 0) : 0;
        sqlite3_value *body = nullptr;
        if (hasEntry && (currentSeq == 0 || entrySeq < currentSeq)) {
            const auto *op = reinterpret_cast<const char *>(sqlite3_column_text(entryAfter.get(), 1));
            if (op != nullptr && std::string_view(op) == "delete")
                return "change-log entry " + std::to_string(seq) + " is kept against a version that was deleted";
            body = sqlite3_column_value(entryAfter.get(), 2);
            seq = entrySeq;
        } else if (currentSeq > seq) {
            body = sqlite3_column_value(current.get(), 1);
            seq = currentSeq;
        } else {
            return "change-log entry " + std::to_string(seq) + " is kept against a version after it, and none is stored";
        }
        if (sqlite3_value_type(body) == SQLITE_NULL)
            return "change-log entry " + std::to_string(seq) + " has no body to rebuild the versions before it from";
        const auto *bytes = static_cast<const char *>(sqlite3_value_blob(body));
        const auto size = static_cast<std::size_t>(sqlite3_value_bytes(body));
        if (sqlite3_value_type(body) == SQLITE_BLOB && BodyCodec::isDelta(std::string_view(bytes, size))) {
            deltas.emplace_back(bytes, size);
            continue;
        }
        std::string error = readStoredValue(db, cache, body, text);
        if (!error.empty())
            return error;
        for (auto it = deltas.rbegin(); it != deltas.rend(); ++it)
            text = BodyCodec::textFromDelta(*it, text);
        return {};
    }
    return "change-log entry " + std::to_string(seq) + " starts a chain of deltas that does not end";
}

// steward_version_text(body, seq, id_key): the text of change-log entry `seq` of the document whose
// stored id is id_key, its stored body being `body`: as steward_text reads it, or, for a version kept
// as a delta, rebuilt from the versions after it.
void versionTextFunction(sqlite3_context *context, int, sqlite3_value **argv)
{
    sqlite3_value *body = argv[0];
    if (sqlite3_value_type(body) != SQLITE_BLOB) {
        sqlite3_result_value(context, body);
        return;
    }
    ReadDictionaries &cache = *static_cast<const TextFunction *>(sqlite3_user_data(context))->cache;
    sqlite3 *db = sqlite3_context_db_handle(context);
    const auto *bytes = static_cast<const char *>(sqlite3_value_blob(body));
    const auto size = static_cast<std::size_t>(sqlite3_value_bytes(body));
    std::string text;
    std::string error;
    if (BodyCodec::isDelta(std::string_view(bytes, size))) {
        std::string next;
        error = textOfVersionAfter(db, cache, argv[2], sqlite3_value_int64(argv[1]), next);
        if (error.empty()) {
            try {
                text = BodyCodec::textFromDelta(std::string_view(bytes, size), next);
            } catch (const std::exception &e) {
                error = e.what();
            }
        }
    } else {
        error = readStoredValue(db, cache, body, text);
    }
    if (!error.empty()) {
        failText(context, error);
        return;
    }
    sqlite3_result_text64(context, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
}

// steward_delta_of(stored, next_text): a version's stored form kept against the text written after it,
// when that is smaller; the stored form as it is otherwise (and when next_text is NULL).
void deltaOfFunction(sqlite3_context *context, int, sqlite3_value **argv)
{
    sqlite3_value *stored = argv[0];
    if (sqlite3_value_type(stored) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
        sqlite3_result_value(context, stored);
        return;
    }
    ReadDictionaries &cache = *static_cast<const TextFunction *>(sqlite3_user_data(context))->cache;
    std::string text;
    const std::string error = readStoredValue(sqlite3_context_db_handle(context), cache, stored, text);
    if (!error.empty()) {
        failText(context, error);
        return;
    }
    const auto *next = reinterpret_cast<const char *>(sqlite3_value_text(argv[1]));
    const std::string delta = BodyCodec::deltaAgainst(
        text, std::string_view(next ? next : "", static_cast<std::size_t>(sqlite3_value_bytes(argv[1]))));
    if (delta.size() >= static_cast<std::size_t>(sqlite3_value_bytes(stored))) {
        sqlite3_result_value(context, stored);
        return;
    }
    sqlite3_result_blob64(context, delta.data(), delta.size(), SQLITE_TRANSIENT);
}

// This thread's compression context, reset: a stored frame (no magic number, no checksum: the
// column's type says it is a frame, the etag checks the text) or a delta (both, see isDelta).
ZSTD_CCtx *freshCompression(bool delta)
{
    ZSTD_CCtx *context = compressionContext();
    ZSTD_CCtx_reset(context, ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(context, ZSTD_c_format, delta ? ZSTD_f_zstd1 : ZSTD_f_zstd1_magicless);
    // A delta's checksum (4 bytes): rebuilt against the wrong next version, it fails instead of
    // answering another text.
    ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, delta ? 1 : 0);
    ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 1);
    return context;
}

std::string compressedWith(ZSTD_CCtx *context, std::string_view text)
{
    std::string frame(ZSTD_compressBound(text.size()), '\0');
    const std::size_t size = ZSTD_compress2(context, frame.data(), frame.size(), text.data(), text.size());
    if (ZSTD_isError(size))
        throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(size));
    frame.resize(size);
    return frame;
}

ZSTD_DCtx *deltaDecompressionContext()
{
    thread_local std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> context(ZSTD_createDCtx(), &ZSTD_freeDCtx);
    return context.get();
}

} // namespace

BodyCodec::BodyCodec(SQLite::Database &db)
    : m_db(db)
{
    SQLite::Statement stored(m_db, "SELECT dictionary, project, resource FROM body_dictionaries ORDER BY dict_id");
    while (stored.executeStep()) {
        const SQLite::Column bytes = stored.getColumn(0);
        std::shared_ptr<const BodyDictionary> dictionary = dictionaryFrom(
            std::string(static_cast<const char *>(bytes.getBlob()), static_cast<std::size_t>(bytes.getBytes())),
            stored.getColumn(1).getString(), stored.getColumn(2).getString());
        // Not a dictionary: nothing is compressed with it from here on; check reports what cannot be read.
        if (dictionary)
            m_byResource[{dictionary->project, dictionary->resource}] = dictionary;
    }
}

BodyCodec::~BodyCodec() = default;

std::shared_ptr<const BodyDictionary> BodyCodec::dictionaryOf(const std::string &project,
                                                              const std::string &resource) const
{
    std::shared_lock<std::shared_mutex> lock(m_mutex);
    auto it = m_byResource.find({project, resource});
    return it == m_byResource.end() ? nullptr : it->second;
}

std::string BodyCodec::compress(const BodyDictionary &dictionary, std::string_view text)
{
    ZSTD_CCtx *context = freshCompression(false);
    ZSTD_CCtx_refCDict(context, dictionary.compress);
    return compressedWith(context, text);
}

std::uint32_t BodyCodec::idOf(const BodyDictionary &dictionary)
{
    return dictionary.id;
}

std::shared_ptr<const BodyDictionary> BodyCodec::sample(const std::string &project, const std::string &resource,
                                                        std::string_view text)
{
    if (text.size() > kLargestSample)
        return nullptr;
    std::vector<std::string> samples;
    {
        std::unique_lock<std::shared_mutex> lock(m_mutex);
        std::vector<std::string> &kept = m_samples[{project, resource}];
        kept.emplace_back(text);
        if (kept.size() < static_cast<std::size_t>(kSamplesToTrain))
            return nullptr;
        samples.swap(kept);
    }
    std::string joined;
    std::vector<std::size_t> sizes;
    for (const std::string &s : samples) {
        joined += s;
        sizes.push_back(s.size());
    }
    // fastCover with set segment sizes, not ZDICT_trainFromBuffer's search over them: on 500
    // documents of the generated district 2-3 ms instead of 56-61 ms a dictionary, and documents
    // as small within 10% either way (student sections 38 bytes instead of 51, sections 79 instead of 69).
    ZDICT_fastCover_params_t parameters{};
    parameters.k = 200;
    parameters.d = 8;
    parameters.f = 20;
    parameters.accel = 1;
    parameters.splitPoint = 1.0;
    parameters.zParams.compressionLevel = 3;
    std::string bytes(kDictionaryCapacity, '\0');
    const std::size_t size = ZDICT_trainFromBuffer_fastCover(bytes.data(), bytes.size(), joined.data(), sizes.data(),
                                                             static_cast<unsigned>(sizes.size()), parameters);
    if (ZDICT_isError(size))
        return nullptr; // too alike or too few bytes: sampling starts again
    bytes.resize(size);
    std::shared_ptr<const BodyDictionary> dictionary = dictionaryFrom(std::move(bytes), project, resource);
    if (!dictionary)
        return nullptr;
    std::unique_lock<std::shared_mutex> lock(m_mutex);
    m_byResource[{project, resource}] = dictionary;
    m_samples.erase({project, resource});
    return dictionary;
}

void BodyCodec::store(const BodyDictionary &dictionary)
{
    SQLite::Statement insert(m_db, "INSERT OR IGNORE INTO body_dictionaries (dict_id, project, resource, created_at, "
                                   "dictionary) VALUES (?, ?, ?, ?, ?)");
    insert.bind(1, static_cast<std::int64_t>(dictionary.id));
    insert.bind(2, dictionary.project);
    insert.bind(3, dictionary.resource);
    insert.bind(4, QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toStdString());
    insert.bind(5, dictionary.bytes.data(), static_cast<int>(dictionary.bytes.size()));
    insert.exec();
}

void BodyCodec::registerTextFunction(SQLite::Database &db, const IndexKeyMemo *memo)
{
    auto cache = std::make_shared<ReadDictionaries>();
    cache->memo = memo;
    auto destroy = [](void *data) { delete static_cast<TextFunction *>(data); };
    for (const bool nullWhenUnreadable : {false, true})
        sqlite3_create_function_v2(db.getHandle(), nullWhenUnreadable ? "steward_text_or_null" : "steward_text", 1,
                                   SQLITE_UTF8 | SQLITE_DETERMINISTIC, new TextFunction{cache, nullWhenUnreadable},
                                   textFunction, nullptr, nullptr, destroy);
    // Not deterministic: a version's text is read through the rows after it.
    sqlite3_create_function_v2(db.getHandle(), "steward_version_text", 3, SQLITE_UTF8, new TextFunction{cache, false},
                               versionTextFunction, nullptr, nullptr, destroy);
    sqlite3_create_function_v2(db.getHandle(), "steward_delta_of", 2, SQLITE_UTF8, new TextFunction{cache, false},
                               deltaOfFunction, nullptr, nullptr, destroy);
}

bool BodyCodec::isDelta(std::string_view stored)
{
    // The zstd magic number, little-endian. Stored frames go without it, and their first byte (the
    // frame header descriptor) never has the reserved bit 0x08 that 0x28 has.
    return stored.size() >= 4 && static_cast<unsigned char>(stored[0]) == 0x28
           && static_cast<unsigned char>(stored[1]) == 0xB5 && static_cast<unsigned char>(stored[2]) == 0x2F
           && static_cast<unsigned char>(stored[3]) == 0xFD;
}

std::string BodyCodec::deltaAgainst(std::string_view text, std::string_view next)
{
    ZSTD_CCtx *context = freshCompression(true);
    ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, 3);
    ZSTD_CCtx_refPrefix(context, next.data(), next.size());
    return compressedWith(context, text);
}

std::string BodyCodec::textFromDelta(std::string_view delta, std::string_view next)
{
    const unsigned long long length = ZSTD_getFrameContentSize(delta.data(), delta.size());
    if (length == ZSTD_CONTENTSIZE_ERROR || length == ZSTD_CONTENTSIZE_UNKNOWN || length > (1u << 30))
        throw std::runtime_error("a history version kept as a delta is not a zstd frame Steward wrote");
    ZSTD_DCtx *context = deltaDecompressionContext();
    ZSTD_DCtx_reset(context, ZSTD_reset_session_and_parameters);
    ZSTD_DCtx_refPrefix(context, next.data(), next.size());
    std::string text(static_cast<std::size_t>(length), '\0');
    const std::size_t written = ZSTD_decompressDCtx(context, text.data(), text.size(), delta.data(), delta.size());
    if (ZSTD_isError(written) || written != text.size())
        throw std::runtime_error(std::string("a history version kept as a delta cannot be rebuilt: ")
                                 + (ZSTD_isError(written) ? ZSTD_getErrorName(written) : "its length is wrong"));
    return text;
}

std::string BodyCodec::compressAlone(std::string_view text)
{
    ZSTD_CCtx *context = freshCompression(false);
    ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, 3);
    return compressedWith(context, text);
}

std::optional<std::string> BodyCodec::frameIfSmaller(const BodyCodec *codec, const std::string &project,
                                                     const std::string &resource, std::string_view text)
{
    std::shared_ptr<const BodyDictionary> dictionary =
        codec != nullptr && !project.empty() ? codec->dictionaryOf(project, resource) : nullptr;
    std::string frame = dictionary ? compress(*dictionary, text) : compressAlone(text);
    if (frame.size() < text.size())
        return frame;
    return std::nullopt;
}

std::optional<std::string> BodyCodec::deltaIfSmaller(std::string_view text, std::string_view next)
{
    std::string delta = deltaAgainst(text, next);
    if (delta.size() < text.size())
        return delta;
    return std::nullopt;
}

} // namespace steward
