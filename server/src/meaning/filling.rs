//! Filling in the vectors: at start, the vectors kept are loaded and the
//! examples embedded (or read back, when unchanged); then the memories
//! without a vector are embedded in batches whenever the memories change,
//! with the progress in the status.

use super::*;

impl Meaning {
    /// Loads the vectors kept, embeds the examples, then fills in the
    /// memories without a vector whenever the memories change.
    pub(super) async fn fill(
        self,
        store: Store,
        loaded: oneshot::Receiver<Result<(), String>>,
        shutdown: CancellationToken,
    ) {
        let off = |reason: WordsOnly| {
            tracing::warn!(?reason, "memories are found by their words only");
            self.set_status(|s| {
                s.state = MeaningState::Off;
                s.reason = Some(reason);
            });
        };
        let started = std::time::Instant::now();
        match loaded.await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => return off(WordsOnly::NotLoaded { error }),
            Err(_) => return off(WordsOnly::Stopped),
        }
        // The examples first: requests wait for them (judging), searches
        // do not need them.
        match self.examples(&store).await {
            Ok((router, request_vectors)) => {
                let _ = self.inner.router.set(router);
                match self.answer_judge(&store, &request_vectors).await {
                    Ok(judge) => {
                        let _ = self.inner.answers.set(judge);
                    }
                    Err(error) => {
                        tracing::warn!(%error, "what is typed under a question is its answer: the example answers could not be embedded")
                    }
                }
            }
            Err(error) => {
                tracing::warn!(%error, "requests are routed by rules: the examples could not be embedded")
            }
        }
        if let Err(error) = self.load_index(&store).await {
            return off(WordsOnly::VectorsUnreadable {
                error: error.to_string(),
            });
        }
        tracing::info!(took = ?started.elapsed(), "finding by meaning: the model, the examples and the kept vectors are read");
        let changed = store.memories_changed();
        loop {
            match self.fill_once(&store).await {
                Ok(true) => continue,
                Ok(false) => {}
                Err(error) => tracing::warn!(%error, "could not fill in the memories' vectors"),
            }
            tokio::select! {
                _ = changed.notified() => {}
                _ = shutdown.cancelled() => return,
            }
        }
    }

    /// One batch of memories without a vector embedded and stored; false
    /// when there were none.
    async fn fill_once(&self, store: &Store) -> Result<bool, String> {
        let missing = store
            .memories_without_vectors(MODEL_NAME, FILL_BATCH)
            .await
            .map_err(|e| e.to_string())?;
        // The counts are read at the first batch of a run and at its last;
        // between, each batch adds what it stored (counting 100,000 rows
        // for every batch of 16 was most of the store's work).
        let first_or_last =
            self.status().state != MeaningState::Filling || missing.len() < FILL_BATCH;
        let counts = if first_or_last {
            Some(
                store
                    .vector_counts(MODEL_NAME)
                    .await
                    .map_err(|e| e.to_string())?,
            )
        } else {
            None
        };
        self.set_status(|s| {
            if let Some((embedded, total)) = counts {
                s.embedded = embedded;
                s.total = total;
            }
            s.state = if missing.is_empty() {
                MeaningState::Ready
            } else {
                MeaningState::Filling
            };
        });
        if missing.is_empty() {
            return Ok(false);
        }
        let texts = missing.iter().map(|(_, content)| content.clone()).collect();
        let vectors = self
            .embed_waiting(texts, true)
            .await
            .map_err(|e| e.to_string())?;
        let rows: Vec<MemoryVector> = missing
            .into_iter()
            .zip(vectors)
            .map(|((id, content), vector)| MemoryVector {
                id,
                content,
                vector,
            })
            .collect();
        let vectors: Vec<(i64, Vec<f32>)> = rows.iter().map(|r| (r.id, r.vector.clone())).collect();
        let stored = store
            .put_vectors(MODEL_NAME, rows)
            .await
            .map_err(|e| e.to_string())?;
        {
            let mut index = self.inner.index.write().unwrap_or_else(|p| p.into_inner());
            for (id, vector) in vectors.iter().filter(|(id, _)| stored.contains(id)) {
                index.put(*id, vector);
            }
        }
        self.set_status(|s| s.embedded += stored.len() as u64);
        Ok(true)
    }

    async fn load_index(&self, store: &Store) -> Result<(), crate::store::StoreError> {
        let mut after = 0;
        loop {
            let page = store.vectors_after(MODEL_NAME, after).await?;
            let Some(&(last, _)) = page.last() else {
                return Ok(());
            };
            let mut index = self.inner.index.write().unwrap_or_else(|p| p.into_inner());
            for (id, vector) in &page {
                index.put(*id, vector);
            }
            after = last;
        }
    }

    /// The router over the labelled examples, and their vectors, read
    /// from the store when this model and file made them before.
    async fn examples(&self, store: &Store) -> Result<(Router, Vec<Vec<f32>>), String> {
        let examples = route::parse_examples(route::EXAMPLES)?;
        let requests: Vec<&str> = examples.iter().map(|(_, r)| *r).collect();
        let vectors = self
            .embed_kept(store, "requests", route::EXAMPLES, &requests)
            .await?;
        let labelled: Vec<(Routed, Vec<f32>)> = examples
            .iter()
            .map(|(kind, _)| *kind)
            .zip(vectors.iter().cloned())
            .collect();
        Ok((Router::new(&labelled), vectors))
    }

    /// The judge of what is typed under a question: the example answers
    /// against the example requests (`request_vectors`).
    async fn answer_judge(
        &self,
        store: &Store,
        request_vectors: &[Vec<f32>],
    ) -> Result<AnswerJudge, String> {
        let answers = answers::parse_answers(answers::ANSWERS);
        let answer_vectors = self
            .embed_kept(store, "answers", answers::ANSWERS, &answers)
            .await?;
        Ok(AnswerJudge::new(&answer_vectors, request_vectors))
    }

    /// The vectors of `lines`, taken from `file`: kept in the store under
    /// the `set`'s name, the model's and the file's hash, embedded when
    /// not kept.
    async fn embed_kept(
        &self,
        store: &Store,
        set: &str,
        file: &str,
        lines: &[&str],
    ) -> Result<Vec<Vec<f32>>, String> {
        let key = format!("{set}/{MODEL_NAME}:{:x}", Sha256::digest(file.as_bytes()));
        let kept = store
            .example_vectors(&key)
            .await
            .map_err(|e| e.to_string())?;
        if let Some(vectors) = kept.filter(|v| v.len() == lines.len()) {
            return Ok(vectors);
        }
        let mut vectors = Vec::with_capacity(lines.len());
        for chunk in lines.chunks(FILL_BATCH) {
            let texts = chunk.iter().map(|line| line.to_string()).collect();
            let embedded = self.embed_waiting(texts, true).await;
            vectors.extend(embedded.map_err(|e| e.to_string())?);
        }
        if let Err(error) = store.keep_example_vectors(&key, &vectors).await {
            tracing::warn!(%error, "could not keep the examples' vectors");
        }
        Ok(vectors)
    }
}
