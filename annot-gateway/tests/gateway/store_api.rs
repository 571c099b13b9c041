//! The store's operations as the approvals page and the gateway use them,
//! on each backend: the approvals queue, the page's sessions, requestStates
//! and risk.

use annot_gateway::StoreLocation;
use annot_gateway::store::{
    ApprovalRequest, ApprovalState, CallRecord, PageSession, Risk, Store, now_ms,
};
use serde_json::json;

use crate::stores::{TestStore, on_each_store};

on_each_store!(
    an_approval_is_decided_once_and_spent_once,
    an_approval_past_its_deadline_expires,
    of_many_stores_spending_at_once_one_gets_each,
    a_request_state_is_spent_once,
    legs_only_add_and_the_first_writer_keeps_each,
    recent_decisions_are_the_newest_first,
    a_page_session_is_every_processs_until_it_ends_or_is_closed,
    page_sessions_past_the_most_lose_those_that_end_first,
);

fn run<T>(work: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(work)
}

async fn open(store: &TestStore) -> Store {
    Store::open(&StoreLocation::parse(&store.url))
        .await
        .unwrap()
}

fn request(id: &str, deadline_ms: i64) -> ApprovalRequest {
    ApprovalRequest {
        id: id.into(),
        call_digest: "sha256:call".into(),
        risk_key: "subject:alice".into(),
        session: "s1".into(),
        upstream: "upstream".into(),
        tool: "notes".into(),
        arguments: json!({"action": "delete", "name": "todo"}),
        annotations: json!({"destructiveHint": true}),
        source: "the configuration's rules; policy: destructive".into(),
        reason: "a destructive call needs a person".into(),
        preview: "delete todo".into(),
        created_ms: now_ms(),
        deadline_ms,
    }
}

fn an_approval_is_decided_once_and_spent_once(store: &TestStore) {
    run(async {
        let store = open(store).await;
        let asked = request("a1", now_ms() + 60_000);
        store.request_approval(&asked).await.unwrap();
        assert_eq!(
            store.pending_approvals().await.unwrap(),
            std::slice::from_ref(&asked)
        );
        let waiting = store.pending_approval_for("sha256:call", "subject:alice");
        assert_eq!(waiting.await.unwrap(), Some(asked));
        let waiting = store.pending_approval_for("sha256:call", "subject:mallory");
        assert_eq!(waiting.await.unwrap(), None, "another caller's call");
        let waiting = store.pending_approval_for("sha256:other", "subject:alice");
        assert_eq!(waiting.await.unwrap(), None, "another call");
        assert_eq!(
            store.approval_state("a1").await.unwrap(),
            Some(ApprovalState::Pending)
        );
        // Not yet approved: nothing to claim.
        let claim = store.claim_approved("sha256:call", "subject:alice").await;
        assert_eq!(claim.unwrap(), None);

        assert_eq!(
            store
                .decide_approval("a1", true, "carol")
                .await
                .unwrap()
                .as_deref(),
            Some("notes")
        );
        assert_eq!(
            store.decide_approval("a1", false, "dave").await.unwrap(),
            None
        );
        assert!(store.pending_approvals().await.unwrap().is_empty());
        let approved = ApprovalState::Approved {
            by: "carol".into(),
            spent: false,
        };
        assert_eq!(store.approval_state("a1").await.unwrap(), Some(approved));

        // For another call or another risk key: nothing.
        let other = store.claim_approved("sha256:other", "subject:alice").await;
        assert_eq!(other.unwrap(), None);
        let other = store.claim_approved("sha256:call", "subject:mallory").await;
        assert_eq!(other.unwrap(), None);
        let claimed = store.claim_approved("sha256:call", "subject:alice").await;
        assert_eq!(claimed.unwrap().as_deref(), Some("a1"));
        let again = store.claim_approved("sha256:call", "subject:alice").await;
        assert_eq!(again.unwrap(), None, "spent once");
        let spent = ApprovalState::Approved {
            by: "carol".into(),
            spent: true,
        };
        assert_eq!(store.approval_state("a1").await.unwrap(), Some(spent));

        store
            .request_approval(&request("a2", now_ms() + 60_000))
            .await
            .unwrap();
        assert_eq!(
            store
                .decide_approval("a2", false, "dave")
                .await
                .unwrap()
                .as_deref(),
            Some("notes")
        );
        let denied = ApprovalState::Denied { by: "dave".into() };
        assert_eq!(store.approval_state("a2").await.unwrap(), Some(denied));
        let claim = store.claim_approved("sha256:call", "subject:alice").await;
        assert_eq!(claim.unwrap(), None, "a denial approves nothing");
        assert_eq!(store.approval_state("never").await.unwrap(), None);
        assert_eq!(
            store.decide_approval("never", true, "carol").await.unwrap(),
            None
        );
    });
}

fn an_approval_past_its_deadline_expires(store: &TestStore) {
    run(async {
        let store = open(store).await;
        store
            .request_approval(&request("late", now_ms() - 1))
            .await
            .unwrap();
        assert!(store.pending_approvals().await.unwrap().is_empty());
        assert_eq!(
            store.approval_state("late").await.unwrap(),
            Some(ApprovalState::Expired)
        );
        assert_eq!(
            store.decide_approval("late", true, "carol").await.unwrap(),
            None
        );
    });
}

fn a_request_state_is_spent_once(store: &TestStore) {
    run(async {
        let store = open(store).await;
        let deadline = now_ms() + 60_000;
        store
            .issue_round_trip("state-1", "sha256:call", deadline)
            .await
            .unwrap();
        store
            .issue_round_trip("state-old", "sha256:call", now_ms() - 1)
            .await
            .unwrap();
        let spent = store.spend_round_trip("state-1").await.unwrap();
        assert_eq!(spent.as_deref(), Some("sha256:call"));
        assert_eq!(store.spend_round_trip("state-1").await.unwrap(), None);
        assert_eq!(store.spend_round_trip("state-old").await.unwrap(), None);
        assert_eq!(store.spend_round_trip("forged").await.unwrap(), None);
    });
}

fn legs_only_add_and_the_first_writer_keeps_each(store: &TestStore) {
    run(async {
        let store = open(store).await;
        let record = CallRecord {
            decision: "allow".into(),
            outcome: "ok".into(),
            annotations: json!({}),
            ..CallRecord::default()
        };
        assert_eq!(store.risk("key:a").await.unwrap(), Risk::default());
        let private = Risk {
            private_data_from: Some("read_mail".into()),
            untrusted_content_from: None,
        };
        store
            .record(&record, Some(("key:a", &private)))
            .await
            .unwrap();
        let later = Risk {
            private_data_from: Some("read_files".into()),
            untrusted_content_from: Some("fetch".into()),
        };
        store
            .record(&record, Some(("key:a", &later)))
            .await
            .unwrap();
        // A refused call records no legs.
        store.record(&record, None).await.unwrap();
        let both = Risk {
            private_data_from: Some("read_mail".into()),
            untrusted_content_from: Some("fetch".into()),
        };
        assert_eq!(store.risk("key:a").await.unwrap(), both);
        assert_eq!(store.risk("key:b").await.unwrap(), Risk::default());
        assert_eq!(store.export().await.unwrap().len(), 3);
    });
}

fn recent_decisions_are_the_newest_first(store: &TestStore) {
    run(async {
        let store = open(store).await;
        for (called_as, decision) in [("a", "allow"), ("b", "deny"), ("c", "confirm")] {
            let record = CallRecord {
                called_as: called_as.into(),
                decision: decision.into(),
                outcome: "ok".into(),
                annotations: json!({}),
                ..CallRecord::default()
            };
            store.record(&record, None).await.unwrap();
        }
        let recent = store.recent_decisions(2).await.unwrap();
        let names: Vec<(&str, &str)> = recent
            .iter()
            .map(|logged| (logged.called_as.as_str(), logged.decision.as_str()))
            .collect();
        assert_eq!(names, [("c", "confirm"), ("b", "deny")]);
        assert!(recent[0].seq > recent[1].seq);
    });
}

/// Eight openings of one store (as eight processes have), each on its own
/// thread, spend one approval and one `requestState` at once: each goes to
/// exactly one of them.
fn of_many_stores_spending_at_once_one_gets_each(store: &TestStore) {
    run(async {
        let first = open(store).await;
        first
            .request_approval(&request("race", now_ms() + 60_000))
            .await
            .unwrap();
        assert_eq!(
            first
                .decide_approval("race", true, "carol")
                .await
                .unwrap()
                .as_deref(),
            Some("notes")
        );
        first
            .issue_round_trip("race-state", "sha256:call", now_ms() + 60_000)
            .await
            .unwrap();
    });
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(8));
    let racers: Vec<_> = (0..8)
        .map(|_| {
            let (url, barrier) = (store.url.clone(), barrier.clone());
            std::thread::spawn(move || {
                run(async {
                    let store = Store::open(&StoreLocation::parse(&url)).await.unwrap();
                    barrier.wait();
                    let claimed = store.claim_approved("sha256:call", "subject:alice").await;
                    let spent = store.spend_round_trip("race-state").await;
                    (claimed.unwrap().is_some(), spent.unwrap().is_some())
                })
            })
        })
        .collect();
    let outcomes: Vec<(bool, bool)> = racers
        .into_iter()
        .map(|racer| racer.join().unwrap())
        .collect();
    let claims = outcomes.iter().filter(|(claimed, _)| *claimed).count();
    let spends = outcomes.iter().filter(|(_, spent)| *spent).count();
    assert_eq!((claims, spends), (1, 1), "{outcomes:?}");
}

fn page_session(approver: &str, expires_ms: i64) -> PageSession {
    PageSession {
        approver: approver.into(),
        csrf: format!("csrf of {approver}"),
        expires_ms,
    }
}

fn a_page_session_is_every_processs_until_it_ends_or_is_closed(store: &TestStore) {
    run(async {
        let (one, two) = (open(store).await, open(store).await);
        let carol = page_session("carol", now_ms() + 60_000);
        one.open_page_session("k1", &carol, 1000).await.unwrap();
        assert_eq!(two.page_session("k1").await.unwrap(), Some(carol));
        assert_eq!(two.page_session("k9").await.unwrap(), None);

        // The notice set through one process is shown once, by either.
        two.set_page_flash("k1", "Approved `notes`").await.unwrap();
        assert_eq!(
            one.take_page_flash("k1").await.unwrap().as_deref(),
            Some("Approved `notes`")
        );
        assert_eq!(two.take_page_flash("k1").await.unwrap(), None);

        two.close_page_session("k1").await.unwrap();
        assert_eq!(one.page_session("k1").await.unwrap(), None);

        let ended = page_session("dave", now_ms() - 1);
        one.open_page_session("k2", &ended, 1000).await.unwrap();
        assert_eq!(two.page_session("k2").await.unwrap(), None);
    });
}

fn page_sessions_past_the_most_lose_those_that_end_first(store: &TestStore) {
    run(async {
        let store = open(store).await;
        let now = now_ms();
        for (key, ends_in) in [("k3", 10_000), ("k4", 30_000), ("k5", 20_000)] {
            let session = page_session(key, now + ends_in);
            store.open_page_session(key, &session, 2).await.unwrap();
        }
        assert_eq!(store.page_session("k3").await.unwrap(), None);
        assert!(store.page_session("k4").await.unwrap().is_some());
        assert!(store.page_session("k5").await.unwrap().is_some());
    });
}
