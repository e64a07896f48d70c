//! The hub's own tests: idle eviction and text cutting.
use super::spoken::head;
use super::*;

fn hub(idle_s: u64) -> Arc<VoiceHub> {
    VoiceHub::new(
        Store::open_in_memory().unwrap(),
        Store::open_in_memory().unwrap(),
        VoiceSettings {
            turn_timeout: Duration::from_secs(60),
            confirm_wait: Duration::from_secs(10),
            answer_wait: Duration::from_secs(60),
            idle: Duration::from_secs(idle_s),
        },
    )
}

#[tokio::test(start_paused = true)]
async fn a_conversation_left_idle_is_dropped_with_its_unsaved_rows() {
    let hub = hub(10);
    let conversation = hub.open(None, false, false).await.unwrap();
    conversation.ensure_stored().await.unwrap();
    let id = conversation.id.clone();
    assert!(hub.ephemeral.get_session(&id).await.unwrap().is_some());
    drop(conversation.subscribe());
    hub.left(&conversation);
    tokio::time::sleep(Duration::from_secs(9)).await;
    assert!(hub.is_open(&id), "not before the idle time");
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(!hub.is_open(&id), "dropped after it");
    // Its rows went with it: the store's one thread takes jobs in
    // order, and the deletion was sent first.
    assert!(hub.ephemeral.get_session(&id).await.unwrap().is_none());
}

#[tokio::test]
async fn conversations_dropped_at_the_cap_take_their_unsaved_rows_with_them() {
    let hub = hub(3600);
    let mut ids = Vec::new();
    for _ in 0..MAX_CONVERSATIONS {
        let conversation = hub.open(None, false, false).await.unwrap();
        conversation.ensure_stored().await.unwrap();
        ids.push(conversation.id.clone());
    }
    assert_eq!(
        hub.ephemeral.list_sessions().await.unwrap().len(),
        MAX_CONVERSATIONS
    );
    // Every one is idle (no window holds it): the next one makes room.
    let next = hub.open(None, false, false).await.unwrap();
    assert_eq!(hub.open_count(), 1);
    for id in &ids {
        assert!(!hub.is_open(id));
        assert!(
            hub.ephemeral.get_session(id).await.unwrap().is_none(),
            "{id}"
        );
    }
    assert!(hub.is_open(&next.id));
}

#[tokio::test(start_paused = true)]
async fn a_conversation_with_a_window_open_is_kept() {
    let hub = hub(10);
    let conversation = hub.open(None, true, false).await.unwrap();
    let window = conversation.subscribe();
    let other = conversation.subscribe();
    drop(other);
    hub.left(&conversation);
    tokio::time::sleep(Duration::from_secs(60)).await;
    assert!(hub.is_open(&conversation.id));
    drop(window);
    assert!(
        hub.store
            .get_session(&conversation.id)
            .await
            .unwrap()
            .is_none(),
        "never written: nobody spoke"
    );
}

#[test]
fn texts_are_cut_on_character_boundaries() {
    assert_eq!(head("héllo", 2), "hé");
    assert_eq!(tail("héllo", 4), "éllo");
    assert_eq!(head("hi", 5), "hi");
    assert_eq!(tail("hi", 5), "hi");
}
