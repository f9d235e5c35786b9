#include "HttpCarrier.h"

#include "ApiSchema.h"

#include <QEventLoop>
#include <QObject>

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <unordered_map>

namespace steward {

// Named, not anonymous: HttpCarrier::Loop holds these, and a unity batch would warn of a member whose type
// has no linkage.
namespace carrierparts {

using Clock = std::chrono::steady_clock;

// How often transfers are checked for having gone quiet; the idle timeout is this much late at most.
constexpr std::chrono::milliseconds kIdleSweep{100};

struct Transfer
{
    HttpCall call;
    HttpCarrier::Answered answered;
    RemoteResponse response;
    curl_slist *headers = nullptr;
    char error[CURL_ERROR_SIZE] = {};
    Clock::time_point lastMoved;
    curl_off_t uploaded = 0;
    bool quiet = false; // given up: nothing moved for the idle timeout

    ~Transfer() { curl_slist_free_all(headers); }
};

} // namespace carrierparts

// Seen from HttpCarrier::Loop below too, through the unnamed namespace, without naming them in steward.
namespace {

using carrierparts::Clock;
using carrierparts::kIdleSweep;
using carrierparts::Transfer;

std::string_view trimmed(std::string_view text)
{
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.remove_suffix(1);
    return text;
}

size_t onBody(char *data, size_t size, size_t count, void *user)
{
    auto *transfer = static_cast<Transfer *>(user);
    transfer->response.body.append(data, static_cast<qsizetype>(size * count));
    transfer->lastMoved = Clock::now();
    return size * count;
}

size_t onHeaderLine(char *data, size_t size, size_t count, void *user)
{
    auto *transfer = static_cast<Transfer *>(user);
    transfer->lastMoved = Clock::now();
    const std::string_view line(data, size * count);
    // Each answer's headers start with its status line: a redirect followed or a 100 Continue
    // leaves only the last answer's.
    if (line.rfind("HTTP/", 0) == 0) {
        transfer->response.headers.clear();
        return line.size();
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos)
        return line.size();
    transfer->response.headers.emplace_back(toLower(std::string(trimmed(line.substr(0, colon)))),
                                            std::string(trimmed(line.substr(colon + 1))));
    return line.size();
}

// Loopback never goes through a proxy (a target on this machine, `steward-cli serve`); other hosts
// follow the environment's http_proxy/https_proxy and no_proxy, as curl and most tools do.
const char *hostsWithoutProxy()
{
    static const std::string hosts = [] {
        std::string list = "localhost,127.0.0.1,::1";
        for (const char *name : {"no_proxy", "NO_PROXY"}) {
            const char *value = std::getenv(name);
            if (value == nullptr || *value == '\0')
                continue;
            if (std::string_view(value) == "*")
                return std::string("*");
            list += ",";
            list += value;
            break;
        }
        return list;
    }();
    return hosts.c_str();
}

// Failures of trust, not of the network: the same on every try.
bool refusesCertificate(CURLcode result)
{
    switch (result) {
    case CURLE_PEER_FAILED_VERIFICATION: // unknown authority, expired, another name
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
        return true;
    default:
        return false;
    }
}

std::string certificateProblem(const HttpCall &call, const std::string &reason)
{
    std::string text = "the server's certificate was not accepted (" + reason + ")";
    if (call.caFile.empty())
        text += "; a district's own certificate authority is trusted with --ca-cert FILE (its certificate, PEM)";
    else
        text += "; the certificate authorities trusted are those in '" + call.caFile + "'";
    return text;
}

void configure(CURL *easy, Transfer &transfer)
{
    const HttpCall &call = transfer.call;
    curl_easy_setopt(easy, CURLOPT_URL, call.url.c_str());
    curl_easy_setopt(easy, CURLOPT_PRIVATE, &transfer);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_NOPROXY, hostsWithoutProxy());
    if (call.method == "GET") {
        curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
    } else {
        if (call.method != "POST")
            curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, call.method.c_str());
        if (call.method == "POST" || !call.body.isEmpty()) {
            curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(call.body.size()));
            curl_easy_setopt(easy, CURLOPT_POSTFIELDS, call.body.constData());
        }
    }
    for (const std::string &header : call.headers)
        transfer.headers = curl_slist_append(transfer.headers, header.c_str());
    // No "Expect: 100-continue": a body is sent at once, not after a round trip's wait.
    transfer.headers = curl_slist_append(transfer.headers, "Expect:");
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, transfer.headers);
    curl_easy_setopt(easy, CURLOPT_USERAGENT, "Steward");
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, ""); // every encoding libcurl can decode
    // Redirects followed, never from https to http (a token must not travel in the clear), nor to
    // plain HTTP at all unless plain HTTP was allowed (a loopback address may send one elsewhere).
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(easy, CURLOPT_MAXREDIRS, 10L);
    const bool https = call.url.rfind("https:", 0) == 0;
    curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, https || !call.plainRedirects ? "https" : "http,https");
    // libcurl verifies the server's certificate and name by default (VERIFYPEER, VERIFYHOST); only the
    // authorities it trusts may be named here.
    if (!call.caFile.empty())
        curl_easy_setopt(easy, CURLOPT_CAINFO, call.caFile.c_str());
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::max(call.idleTimeoutMs, 1)));
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, onBody);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &transfer);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, onHeaderLine);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, &transfer);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, transfer.error);
    transfer.response.request = call.label;
    transfer.lastMoved = Clock::now();
}

} // namespace

// The thread that runs libcurl: takes new requests from a queue, drives every transfer, hands answers on.
class HttpCarrier::Loop
{
public:
    Loop()
    {
        static std::once_flag initialized;
        std::call_once(initialized, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
        m_multi = curl_multi_init();
        m_thread = std::thread([this] { run(); });
    }

    ~Loop()
    {
        {
            const std::lock_guard<std::mutex> lock(m_mutex);
            m_stopping = true;
        }
        curl_multi_wakeup(m_multi);
        m_thread.join();
        for (auto &[easy, transfer] : m_running) {
            curl_multi_remove_handle(m_multi, easy);
            curl_easy_cleanup(easy);
        }
        for (CURL *easy : m_spare)
            curl_easy_cleanup(easy);
        curl_multi_cleanup(m_multi);
    }

    void add(std::unique_ptr<Transfer> transfer)
    {
        {
            const std::lock_guard<std::mutex> lock(m_mutex);
            m_incoming.push_back(std::move(transfer));
        }
        curl_multi_wakeup(m_multi);
    }

private:
    void run()
    {
        Clock::time_point lastSweep = Clock::now();
        for (;;) {
            std::deque<std::unique_ptr<Transfer>> incoming;
            {
                const std::lock_guard<std::mutex> lock(m_mutex);
                if (m_stopping)
                    return;
                incoming.swap(m_incoming);
            }
            for (std::unique_ptr<Transfer> &transfer : incoming)
                start(std::move(transfer));
            int running = 0;
            curl_multi_perform(m_multi, &running);
            takeFinished();
            if (Clock::now() - lastSweep >= kIdleSweep) {
                lastSweep = Clock::now();
                giveUpQuiet();
            }
            curl_multi_poll(m_multi, nullptr, 0,
                            m_running.empty() ? 1000 : static_cast<int>(kIdleSweep.count()), nullptr);
        }
    }

    void start(std::unique_ptr<Transfer> transfer)
    {
        CURL *easy = nullptr;
        if (m_spare.empty()) {
            easy = curl_easy_init();
        } else {
            easy = m_spare.back();
            m_spare.pop_back();
            curl_easy_reset(easy);
        }
        configure(easy, *transfer);
        curl_multi_add_handle(m_multi, easy);
        m_running.emplace(easy, std::move(transfer));
    }

    void takeFinished()
    {
        int left = 0;
        while (CURLMsg *message = curl_multi_info_read(m_multi, &left)) {
            if (message->msg != CURLMSG_DONE)
                continue;
            finish(message->easy_handle, message->data.result);
        }
    }

    void finish(CURL *easy, CURLcode result)
    {
        auto found = m_running.find(easy);
        if (found == m_running.end())
            return;
        std::unique_ptr<Transfer> transfer = std::move(found->second);
        m_running.erase(found);
        RemoteResponse &response = transfer->response;
        if (result == CURLE_OK) {
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            response.status = static_cast<int>(status);
        } else {
            response.status = 0;
            response.headers.clear();
            response.body.clear();
            const std::string reason = transfer->error[0] != '\0' ? transfer->error : curl_easy_strerror(result);
            response.lasting = refusesCertificate(result);
            response.networkError =
                transfer->quiet || result == CURLE_OPERATION_TIMEDOUT
                    ? "no answer within " + std::to_string(transfer->call.idleTimeoutMs / 1000) + " s"
                : response.lasting ? certificateProblem(transfer->call, reason)
                                   : reason;
        }
        curl_multi_remove_handle(m_multi, easy);
        m_spare.push_back(easy);
        transfer->answered(std::move(response));
    }

    // Qt's transfer timeout, kept: a request is given up when nothing has moved for its idle timeout
    // (a server that holds an answer, a stalled upload), however long the whole transfer takes.
    void giveUpQuiet()
    {
        const Clock::time_point now = Clock::now();
        std::vector<CURL *> quiet;
        for (auto &[easy, transfer] : m_running) {
            curl_off_t uploaded = 0;
            curl_easy_getinfo(easy, CURLINFO_SIZE_UPLOAD_T, &uploaded);
            if (uploaded != transfer->uploaded) {
                transfer->uploaded = uploaded;
                transfer->lastMoved = now;
            } else if (now - transfer->lastMoved >= std::chrono::milliseconds(transfer->call.idleTimeoutMs)) {
                transfer->quiet = true;
                quiet.push_back(easy);
            }
        }
        for (CURL *easy : quiet)
            finish(easy, CURLE_OPERATION_TIMEDOUT);
    }

    CURLM *m_multi = nullptr;
    std::thread m_thread;
    std::mutex m_mutex;
    std::deque<std::unique_ptr<Transfer>> m_incoming; // guarded by m_mutex
    bool m_stopping = false;                          // guarded by m_mutex
    std::unordered_map<CURL *, std::unique_ptr<Transfer>> m_running;
    std::vector<CURL *> m_spare; // finished handles, reused (their buffers and settings allocations)
};

HttpCarrier::HttpCarrier() : m_loop(std::make_unique<Loop>()) {}

HttpCarrier::~HttpCarrier() = default;

void HttpCarrier::send(HttpCall call, QObject *receiver, Answered answered)
{
    auto transfer = std::make_unique<Transfer>();
    transfer->call = std::move(call);
    transfer->answered = [receiver, answered = std::move(answered)](RemoteResponse response) mutable {
        QMetaObject::invokeMethod(
            receiver,
            [answered = std::move(answered), response = std::move(response)]() mutable {
                answered(std::move(response));
            },
            Qt::QueuedConnection);
    };
    m_loop->add(std::move(transfer));
}

RemoteResponse HttpCarrier::exchange(HttpCall call)
{
    // Events run while it waits, as in Qt's own blocking calls: a server on this same thread (a test's
    // stand-in) still answers, and so do timers and queued calls of the caller's.
    QEventLoop wait;
    std::optional<RemoteResponse> answer;
    send(std::move(call), &wait, [&wait, &answer](RemoteResponse response) {
        answer = std::move(response);
        wait.quit();
    });
    wait.exec(); // the answer is taken on this thread, by this loop: it cannot be here before
    return std::move(*answer);
}

} // namespace steward
