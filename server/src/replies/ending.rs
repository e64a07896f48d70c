//! How a reply ends: the text kept (markup and Imprint's notes said back
//! dropped; Imprint's own answer when nothing readable is left), the
//! final event, the stored message with its `ended` mark, and the
//! registry and dashboard told.

use std::sync::Arc;

use app::protocol::{DashboardEvent, Ended, ReplyEvent};

use super::own_answer;
use super::registry::Replies;
use super::run::{Interrupt, Run};
use crate::models::shown_text::without_markup;
use crate::store::{NewMessage, Store};

/// Runs `run` to its end and ends the reply: its text kept, its final
/// event, and `replies` (the registry) and the dashboard told.
pub(super) async fn drive(mut run: Run, replies: Arc<Replies>) {
    let reply = Arc::clone(&run.reply);
    let env = Arc::clone(&run.env);
    let store = reply.store.clone();
    let outcome = run.run().await;
    run.release_slot();
    // Markup never reaches the user, even in the stored answer; nor do
    // Imprint's notes said back by a small model.
    let text = own_answer::without_notes_said_back(&without_markup(run.talk.shown()));
    let session = reply.session_id.clone();
    // A small model may write nothing readable after its tools ran (see
    // the policy): Imprint answers from what was done or found.
    let fallback = run.policy.fallback(env.clock.now());
    let text = match (&outcome, text.is_empty(), fallback) {
        (Ok(()), true, Some(fallback)) => {
            reply.log.publish(ReplyEvent::Token {
                text: fallback.clone(),
            });
            fallback
        }
        _ => text,
    };
    let close = |message: Option<NewMessage>| {
        let store = store.clone();
        let (session, reply_id) = (session.clone(), reply.id.clone());
        async move {
            store
                .close_reply(&session, &reply_id, message.into_iter().collect())
                .await
                .map_err(|e| {
                    tracing::error!(error = %e, "could not store the end of a reply");
                    "the reply could not be saved".to_string()
                })
        }
    };
    let final_event = match outcome {
        Ok(()) if text.is_empty() => {
            let error = "the model gave no answer".to_string();
            let kept = assistant("", Some(Ended::Error), Some(error.clone()));
            if let Err(e) = close(Some(kept)).await {
                tracing::warn!(error = %e, "could not keep the failed reply");
            }
            ReplyEvent::Error { error }
        }
        Ok(()) => {
            let ended = run.turns.length_limited().then_some(Ended::Length);
            match close(Some(assistant(&text, ended, None))).await {
                Ok(()) => ReplyEvent::AssistantMessage {
                    html: Some(crate::markdown::to_html(&text)),
                    text,
                },
                Err(error) => ReplyEvent::Error { error },
            }
        }
        Err(Interrupt::Shutdown) => {
            // A reply that can resume (it waits, or was answered and waits
            // for its turn) stays as stored; one being written is kept
            // with its text, marked interrupted.
            if !run.questions.is_stored() {
                let kept = assistant(&text, Some(Ended::Interrupted), None);
                if let Err(e) = close(Some(kept)).await {
                    tracing::warn!(error = %e, "could not keep the interrupted reply");
                }
            }
            replies.finish(&reply);
            return;
        }
        // The session is gone, and its open reply with it.
        Err(Interrupt::Ended) => ReplyEvent::Stopped,
        Err(Interrupt::Stopped) => {
            let kept = (!text.is_empty()).then(|| assistant(&text, Some(Ended::Stopped), None));
            if let Err(e) = close(kept).await {
                tracing::warn!(error = %e, "could not keep the stopped reply's text");
            }
            ReplyEvent::Stopped
        }
        Err(Interrupt::Failed { error, ended }) => {
            let kept = assistant(
                &text,
                Some(ended),
                (ended == Ended::Error).then(|| error.clone()),
            );
            if let Err(e) = close(Some(kept)).await {
                tracing::warn!(error = %e, "could not keep the failed reply");
            }
            ReplyEvent::Error { error }
        }
    };
    let (outcome, error) = match &final_event {
        ReplyEvent::AssistantMessage { .. } => ("answered", None),
        ReplyEvent::Error { error } => ("error", Some(error.clone())),
        _ => ("stopped", None),
    };
    reply.log.publish(final_event);
    replies.finish(&reply);
    let _ = env.dashboard.send(DashboardEvent::ReplyFinished {
        session_id: session,
        reply_id: reply.id.clone(),
        outcome: outcome.into(),
        error,
    });
    reply.log.publish(ReplyEvent::Done);
}

fn assistant(text: &str, ended: Option<Ended>, error: Option<String>) -> NewMessage {
    NewMessage {
        ended,
        error,
        ..NewMessage::assistant(text)
    }
}

pub(super) async fn append(
    store: &Store,
    session: &str,
    message: NewMessage,
) -> Result<(), String> {
    store
        .append_message(session, message)
        .await
        .map(|_| ())
        .map_err(|e| {
            tracing::error!(error = %e, "could not store a message");
            "the reply could not be saved".to_string()
        })
}
