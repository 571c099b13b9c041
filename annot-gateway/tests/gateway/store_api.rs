//! The store's operations as the gateway uses them, on each backend:
//! requestStates, risk and the log.

use annot_gateway::StoreLocation;
use annot_gateway::store::{CallRecord, Risk, Store, now_ms};
use serde_json::json;

use crate::stores::{TestStore, on_each_store};

on_each_store!(
    a_request_state_is_spent_once,
    legs_only_add_and_the_first_writer_keeps_each,
    recent_decisions_are_the_newest_first,
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
