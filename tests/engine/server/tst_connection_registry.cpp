// ConnectionRegistry alone (issue 27, item 5): when the server is full, a
// new connection evicts the one that has waited longest for a request
// header instead of being refused; busy connections are never evicted; a
// non-loopback peer is limited on its own (within its own connections),
// loopback peers share the whole limit.
#include "server/connection_registry.h"

#include <QTest>

#include <thread>

using namespace burrow::server;

namespace {

class FakeSlot final : public ConnectionSlot {
public:
    explicit FakeSlot(std::string peer) : ConnectionSlot(std::move(peer)) {}
    int evictions = 0;

protected:
    void evict() override { ++evictions; }
};

std::shared_ptr<FakeSlot> open(ConnectionRegistry &r, const std::string &peer, bool busy)
{
    auto slot = std::make_shared<FakeSlot>(peer);
    if (busy)
        slot->busy();
    else
        slot->waitingForHeader();
    r.add(slot);
    // Distinct waiting times, oldest first.
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    return slot;
}

} // namespace

class TestConnectionRegistry : public QObject {
    Q_OBJECT

private slots:
    void roomIsAccepted()
    {
        ConnectionRegistry r(3, 2);
        QVERIFY(r.admit("") == ConnectionRegistry::Admission::ADMISSION_ACCEPTED);
        auto a = open(r, "", false);
        auto b = open(r, "", false);
        QVERIFY(r.admit("") == ConnectionRegistry::Admission::ADMISSION_ACCEPTED);
        QCOMPARE(r.count(), 2);
        QCOMPARE(a->evictions + b->evictions, 0);
    }

    // 128 idle sockets used to give everyone else 503: now the idlest goes.
    void fullEvictsTheLongestWaiting()
    {
        ConnectionRegistry r(3, 0);
        auto busy = open(r, "", true);
        auto older = open(r, "", false);
        auto newer = open(r, "", false);
        QVERIFY(r.admit("") == ConnectionRegistry::Admission::ADMISSION_EVICTED);
        QCOMPARE(older->evictions, 1);
        QCOMPARE(newer->evictions, 0);
        QCOMPARE(busy->evictions, 0);
        QVERIFY(older->evicted());
        QCOMPARE(r.count(), 2);   // the evicted one no longer counts
        // The next one takes the next longest waiting.
        auto newest = open(r, "", false);
        QVERIFY(r.admit("") == ConnectionRegistry::Admission::ADMISSION_EVICTED);
        QCOMPARE(newer->evictions, 1);
        QCOMPARE(newest->evictions, 0);
    }

    // A connection that got its header meanwhile is spared and counts again.
    void sparedCountsAgain()
    {
        ConnectionRegistry r(1, 0);
        auto a = open(r, "", false);
        QVERIFY(r.admit("") == ConnectionRegistry::Admission::ADMISSION_EVICTED);
        QCOMPARE(r.count(), 0);
        a->busy();
        a->spared();
        QCOMPARE(r.count(), 1);
        QVERIFY(r.admit("") == ConnectionRegistry::Admission::ADMISSION_REFUSED);
    }

    void allBusyIsRefused()
    {
        ConnectionRegistry r(2, 0);
        auto a = open(r, "", true);
        auto b = open(r, "", true);
        QVERIFY(r.admit("") == ConnectionRegistry::Admission::ADMISSION_REFUSED);
        QCOMPARE(a->evictions + b->evictions, 0);
    }

    void closedConnectionsFreeTheirPlace()
    {
        ConnectionRegistry r(1, 0);
        {
            auto a = open(r, "", true);
            QVERIFY(r.admit("") == ConnectionRegistry::Admission::ADMISSION_REFUSED);
        }
        QVERIFY(r.admit("") == ConnectionRegistry::Admission::ADMISSION_ACCEPTED);
    }

    // One remote peer cannot take more than its share, and when it is at
    // its share it evicts among its own connections only.
    void perPeerLimit()
    {
        ConnectionRegistry r(100, 2);
        auto other = open(r, "192.0.2.9", false);   // older than the peer's, and idle
        auto p1 = open(r, "192.0.2.1", false);
        auto p2 = open(r, "192.0.2.1", true);
        QVERIFY(r.admit("192.0.2.1") == ConnectionRegistry::Admission::ADMISSION_EVICTED);
        QCOMPARE(p1->evictions, 1);
        QCOMPARE(other->evictions, 0);
        auto p3 = open(r, "192.0.2.1", true);
        QVERIFY(r.admit("192.0.2.1") == ConnectionRegistry::Admission::ADMISSION_REFUSED);   // both busy
        QVERIFY(r.admit("192.0.2.2") == ConnectionRegistry::Admission::ADMISSION_ACCEPTED);
        // Loopback ("") is this machine: only the total limit applies.
        std::vector<std::shared_ptr<FakeSlot>> local;
        for (int i = 0; i < 10; ++i)
            local.push_back(open(r, "", true));
        QVERIFY(r.admit("") == ConnectionRegistry::Admission::ADMISSION_ACCEPTED);
        QCOMPARE(p2->evictions + p3->evictions, 0);
    }
};

QTEST_MAIN(TestConnectionRegistry)
#include "tst_connection_registry.moc"
