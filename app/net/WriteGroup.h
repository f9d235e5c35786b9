#pragma once

#include "Protocol.h"

#include <QObject>
#include <QThread>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace steward {

class Database;
class Engine;
class Model;

// serve's writer: its own connection and engine on a thread of its own, so that reads on the serving
// thread never wait for a write. Writes that arrive while one group is committing go together as the
// next group: one BEGIN IMMEDIATE, each request in its own savepoint (a refused request undoes only
// itself), one COMMIT (one sync to disk for the group); each request is answered only after the
// commit that holds it. When the group cannot commit, each request runs again on its own, so no
// request fails for another's sake.
class WriteGroup : public QObject
{
    Q_OBJECT

public:
    WriteGroup(const Model &model, std::string databasePath, QObject *parent = nullptr);
    ~WriteGroup() override;

    // On the writer thread; `done` runs on this object's thread with one response per request.
    void run(std::vector<Request> requests, std::function<void(std::vector<Response>)> done);

private:
    class Worker;
    QThread m_thread;
    Worker *m_worker = nullptr; // lives on m_thread, deleted when it finishes
};

} // namespace steward
