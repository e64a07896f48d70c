//! Reminders fire: one timer task sleeps until the next due reminder, woken
//! early only when reminders change (a chat's `remind`, the API's add, edit
//! and delete). Due reminders are pushed to every open dashboard; a one-off
//! is marked done, a repeating one moves to its next time, which the timer
//! then sleeps until like any other (see `store::reminders`).

use std::sync::Arc;

use app::protocol::DashboardEvent;
use chrono::Utc;
use tokio::sync::{broadcast, Notify};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::store::Store;

pub fn spawn_timer(
    store: Store,
    changed: Arc<Notify>,
    dashboard: broadcast::Sender<DashboardEvent>,
    shutdown: CancellationToken,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            let next = match store.next_pending_due().await {
                Ok(next) => next,
                Err(error) => {
                    tracing::error!(%error, "cannot read reminders; waiting for a change");
                    None
                }
            };
            let sleep = async {
                match next {
                    Some(due) => {
                        let wait = (due - Utc::now()).to_std().unwrap_or_default();
                        tokio::time::sleep_until(Instant::now() + wait).await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = changed.notified() => continue,
                _ = sleep => {}
            }
            match store.take_due(Utc::now()).await {
                Ok(due) => {
                    for reminder in due {
                        tracing::info!(id = reminder.id, text = %reminder.text, "reminder due");
                        let _ = dashboard.send(DashboardEvent::ReminderDue {
                            id: reminder.id,
                            text: reminder.text,
                            due_at: reminder.due_at,
                        });
                    }
                }
                Err(error) => {
                    // Retrying at once would spin on the same due reminder:
                    // wait for a change (or shutdown) instead.
                    tracing::error!(%error, "cannot mark due reminders; waiting for a change");
                    tokio::select! {
                        _ = shutdown.cancelled() => return,
                        _ = changed.notified() => {}
                    }
                }
            }
        }
    })
}
