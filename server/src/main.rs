//! The `imprint` binary: serves the dashboard and the API, or imports
//! memories.

use std::io::Write;
use std::process::ExitCode;

use imprint::config::{Command, Config};

#[tokio::main]
async fn main() -> ExitCode {
    let config = match Config::load() {
        Ok(config) => config,
        Err(error) => return fail(&error.to_string()),
    };
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,tower_http=warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    if let Err(error) = config.validate() {
        return fail(&error.to_string());
    }
    // Leptos' server functions spawn on this executor.
    let _ = any_spawner::Executor::init_tokio();
    match config.command.clone() {
        Some(Command::Import { file }) => import(config, &file).await,
        Some(Command::Serve) | None => serve(config).await,
    }
}

async fn serve(config: Config) -> ExitCode {
    tracing::info!("{}", config.summary());
    let running = match imprint::serve::start(config).await {
        Ok(running) => running,
        Err(error) => return fail(&error.to_string()),
    };
    // Scripts and tests wait for this exact line.
    println!("imprint listening on http://{}", running.addr);
    let _ = std::io::stdout().flush();
    let shutdown = running.shutdown.clone();
    tokio::spawn(async move {
        imprint::serve::shutdown_signal().await;
        tracing::info!("shutting down");
        shutdown.cancel();
    });
    match running.task.await {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => fail(&format!("server error: {e}")),
        Err(e) => fail(&format!("server task failed: {e}")),
    }
}

async fn import(config: Config, file: &std::path::Path) -> ExitCode {
    let database = match config.database_path() {
        Ok(path) => path,
        Err(error) => return fail(&error.to_string()),
    };
    let store = match imprint::store::Store::open(&database) {
        Ok(store) => store,
        Err(e) => {
            return fail(&format!(
                "cannot open the database at {}: {e}",
                database.display()
            ))
        }
    };
    match imprint::import::import_file(&store, file).await {
        Ok(count) => {
            println!("imported {count} memories into {}", database.display());
            ExitCode::SUCCESS
        }
        Err(error) => fail(&error.to_string()),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("imprint: {message}");
    ExitCode::FAILURE
}
