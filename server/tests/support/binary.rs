//! The real `imprint` binary as a child process, on a data directory that
//! outlives it: started, killed with SIGKILL or stopped with SIGTERM, and
//! started again on the same directory. For the tests of what survives.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use super::Api;

/// One run of the binary.
pub struct Binary {
    child: Child,
    pub api: Api,
}

impl std::ops::Deref for Binary {
    type Target = Api;

    fn deref(&self) -> &Api {
        &self.api
    }
}

impl Binary {
    /// Starts `imprint` on `data` with the stand-in model at `model_url`,
    /// and waits for the line saying where it listens.
    pub async fn start(data: &Path, model_url: &str, args: &[&str]) -> Self {
        Self::start_finding(data, model_url, "off", args).await
    }

    /// [`Binary::start`] with finding by meaning on: the real embedding
    /// weights (`scripts/embedding-model.sh ensure`).
    pub async fn start_by_meaning(data: &Path, model_url: &str, args: &[&str]) -> Self {
        let dir = imprint::meaning::cached_model_dir().expect("a cache directory");
        if let Some(missing) = imprint::meaning::minilm::missing_file(&dir) {
            panic!(
                "no {missing} in {}: run scripts/embedding-model.sh ensure",
                dir.display()
            );
        }
        Self::start_finding(data, model_url, dir.to_str().unwrap(), args).await
    }

    async fn start_finding(data: &Path, model_url: &str, embedding: &str, args: &[&str]) -> Self {
        // The stand-in as an OpenAI-compatible server, unless `args` name
        // the provider (the built-in model's `local`).
        let provider = if args.contains(&"--chat-provider") {
            &[][..]
        } else {
            &["--chat-provider", "openai", "--chat-model", "standin"][..]
        };
        let mut child = Command::new(env!("CARGO_BIN_EXE_imprint"))
            .args([
                "--addr",
                "127.0.0.1:0",
                "--data-dir",
                data.to_str().unwrap(),
                "--dist-dir",
                "/nonexistent",
                "--chat-base-url",
                model_url,
                "--embedding-model-dir",
                embedding,
            ])
            .args(provider)
            .args(args)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the imprint binary starts");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let url = tokio::time::timeout(Duration::from_secs(30), async {
            while let Some(line) = lines.next_line().await.unwrap() {
                if let Some(url) = line.strip_prefix("imprint listening on ") {
                    return url.trim().to_string();
                }
            }
            panic!("imprint exited before listening");
        })
        .await
        .expect("imprint listens within 30 s");
        // Keep reading stdout so the child never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Self {
            child,
            api: Api::new(url),
        }
    }

    /// SIGKILL: the process ends at once, with no chance to save anything.
    pub async fn kill(mut self) {
        self.child.start_kill().unwrap();
        self.child.wait().await.unwrap();
    }

    /// SIGTERM, then waits for the process to exit; returns how long it
    /// took and whether it exited successfully.
    pub async fn terminate(mut self) -> (Duration, bool) {
        let pid = self.child.id().expect("running") as libc::pid_t;
        let sent = Instant::now();
        // SAFETY: sending a signal to our own child process.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
        let status = tokio::time::timeout(Duration::from_secs(20), self.child.wait())
            .await
            .expect("imprint exits after SIGTERM")
            .unwrap();
        (sent.elapsed(), status.success())
    }
}
