//! The engine's side of [`Records`]: memories and reminders as the
//! Memories page and the REST API reach them. Times a user types ("tomorrow
//! at 9") are read with the grounding grammar, against the replies' clock.

use app::api::{ApiError, Records};
use app::protocol::{
    Imported, Memory, MemoryInput, MemoryListQuery, MemoryPage, MemoryPatch, Moved, NewReminder,
    ProjectList, ProjectMove, Reminder, ReminderList, ReminderPatch, ReminderStatus,
};
use chrono::{DateTime, Utc};

use super::{store_error, Engine};
use crate::grounding::when;
use crate::import::{self, ImportError};
use crate::store::{ExportCursor, MemoryChange, MemoryPageQuery, NewMemory, ReminderChange};

/// Memories per page of the export: its memory is bounded by this.
const EXPORT_PAGE: usize = 200;

impl Engine {
    /// A time the user typed: ISO 8601, or the grounding grammar ("tomorrow
    /// at 9", "in 2 hours", "Friday"); it must be ahead.
    fn reminder_time(&self, at: &str) -> Result<DateTime<Utc>, ApiError> {
        let now = self.clock().now();
        let at = at.trim();
        // A zone is read where it can be and refused by name where it
        // cannot, never dropped (the reminder would fire at the wrong hour).
        if let when::ZoneSaid::Refused(why) = when::zone_said(at) {
            return Err(ApiError::bad_request(why));
        }
        if let Some(zone) = when::zone_name(at).filter(|zone| !when::is_known_zone(zone)) {
            return Err(ApiError::bad_request(format!(
                "{} is not a time zone Imprint knows: give an offset (2030-01-01T09:00+02:00) or a zone such as Europe/Paris",
                crate::quoting::quoted(zone)
            )));
        }
        let due = crate::tools::run::parse_date_time(at, now)
            .ok()
            .or_else(|| {
                when::stated(at, now)
                    .and_then(|stated| stated.moment())
                    .map(|t| t.with_timezone(&Utc))
            })
            .ok_or_else(|| {
                ApiError::bad_request(format!(
                    "{} is not a time Imprint can read (try \"tomorrow at 9\" or 2026-12-01T09:00)",
                    crate::quoting::quoted(at)
                ))
            })?;
        if due <= now.with_timezone(&Utc) {
            return Err(ApiError::bad_request(format!(
                "{} has already passed",
                crate::quoting::quoted(at)
            )));
        }
        Ok(due)
    }

    /// One page of the export as JSON Lines, and where the next begins.
    pub async fn export_page(
        &self,
        after: Option<ExportCursor>,
    ) -> Result<(String, Option<ExportCursor>), ApiError> {
        let (memories, next) = self
            .store
            .export_page(after, EXPORT_PAGE)
            .await
            .map_err(store_error)?;
        Ok((import::export(&memories), next))
    }

    /// JSON Lines read from the reader `open` gives (called twice) in:
    /// all of them, or none and the bad line named.
    pub async fn import_memories<F, R>(&self, open: F) -> Result<Imported, ApiError>
    where
        F: Fn() -> std::io::Result<R> + Send + Sync + 'static,
        R: std::io::BufRead,
    {
        match import::import_from(&self.store, open).await {
            Ok(imported) => Ok(Imported { imported }),
            Err(error @ ImportError::Line { .. }) => Err(ApiError::bad_request(format!(
                "nothing was imported: {error}"
            ))),
            Err(ImportError::Store(error)) => Err(store_error(error)),
            Err(error @ ImportError::Read { .. }) => Err(ApiError::bad_request(error.to_string())),
            Err(error @ ImportError::PartlyKept { .. }) => {
                Err(ApiError::internal(error.to_string()))
            }
        }
    }

    fn no_memory(id: i64) -> ApiError {
        ApiError::not_found(format!("no memory with id {id}"))
    }

    fn no_reminder(id: i64) -> ApiError {
        ApiError::not_found(format!("no reminder with id {id}"))
    }
}

#[async_trait::async_trait]
impl Records for Engine {
    async fn list_memories(&self, query: MemoryListQuery) -> Result<MemoryPage, ApiError> {
        let listed = self
            .store
            .list_memories(MemoryPageQuery {
                query: query.q,
                project: query.project,
                cursor: query.cursor,
                limit: query.limit,
            })
            .await
            .map_err(store_error)?;
        Ok(MemoryPage {
            memories: listed.memories,
            next_cursor: listed.next_cursor,
        })
    }

    async fn get_memory(&self, id: i64) -> Result<Memory, ApiError> {
        self.store
            .get_memory(id)
            .await
            .map_err(store_error)?
            .ok_or_else(|| Self::no_memory(id))
    }

    async fn create_memory(&self, input: MemoryInput) -> Result<Memory, ApiError> {
        let memory = NewMemory {
            content: input.content,
            project: input.project,
            tags: input.tags,
            created_at: input.created_at,
        };
        match input.id {
            None => self.store.add_memory(memory).await,
            Some(id) => self.store.restore_memory(id, memory).await,
        }
        .map_err(store_error)
    }

    async fn update_memory(&self, id: i64, patch: MemoryPatch) -> Result<Memory, ApiError> {
        let change = MemoryChange {
            content: patch.content,
            project: patch.project,
            tags: patch.tags,
        };
        self.store
            .update_memory(id, change)
            .await
            .map_err(store_error)?
            .ok_or_else(|| Self::no_memory(id))
    }

    async fn delete_memory(&self, id: i64) -> Result<Memory, ApiError> {
        self.store
            .delete_memory(id)
            .await
            .map_err(store_error)?
            .ok_or_else(|| Self::no_memory(id))
    }

    async fn meaning_status(&self) -> Result<app::protocol::MeaningStatus, ApiError> {
        Ok(self.meaning.status())
    }

    async fn list_projects(&self) -> Result<ProjectList, ApiError> {
        let projects = self.store.list_projects().await.map_err(store_error)?;
        Ok(ProjectList { projects })
    }

    async fn move_project(&self, change: ProjectMove) -> Result<Moved, ApiError> {
        let moved = self
            .store
            .move_project(&change.from, &change.to)
            .await
            .map_err(store_error)?;
        if moved == 0 {
            return Err(ApiError::not_found(format!(
                "no project named {:?}",
                change.from.trim()
            )));
        }
        Ok(Moved { moved })
    }

    async fn list_reminders(
        &self,
        status: Option<ReminderStatus>,
    ) -> Result<ReminderList, ApiError> {
        let (reminders, unreadable) = self
            .store
            .reminders_with(status)
            .await
            .map_err(store_error)?;
        Ok(ReminderList {
            reminders,
            unreadable,
        })
    }

    async fn create_reminder(
        &self,
        reminder: NewReminder,
        session_id: Option<String>,
    ) -> Result<Reminder, ApiError> {
        if reminder.text.trim().is_empty() {
            return Err(ApiError::bad_request("the reminder text is empty"));
        }
        let due = self.reminder_time(&reminder.at)?;
        let created = self
            .store
            .add_reminder_repeating(reminder.text, due, session_id, reminder.repeat)
            .await
            .map_err(store_error)?;
        self.reminders_changed.notify_one();
        Ok(created)
    }

    async fn update_reminder(&self, id: i64, patch: ReminderPatch) -> Result<Reminder, ApiError> {
        let due_at = patch
            .at
            .as_deref()
            .map(|at| self.reminder_time(at))
            .transpose()?;
        let change = ReminderChange {
            text: patch.text,
            due_at,
            // A new time makes a done reminder upcoming again.
            done: patch.done.or(due_at.map(|_| false)),
            repeat: patch.repeat,
        };
        let updated = self
            .store
            .update_reminder(id, change)
            .await
            .map_err(store_error)?
            .ok_or_else(|| Self::no_reminder(id))?;
        self.reminders_changed.notify_one();
        Ok(updated)
    }

    async fn delete_reminder(&self, id: i64) -> Result<(), ApiError> {
        if !self.store.delete_reminder(id).await.map_err(store_error)? {
            return Err(Self::no_reminder(id));
        }
        self.reminders_changed.notify_one();
        Ok(())
    }
}
