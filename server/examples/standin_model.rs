//! The scripted stand-in model as a process, for end-to-end tests:
//! `standin_model [ADDR]` prints `standin listening on http://ADDR/v1`, then
//! takes scenarios by `POST /_scenarios` (a JSON list) and shows what it
//! received at `GET /_requests`. Test support, not part of the product.

#[path = "../tests/support/standin.rs"]
mod standin;

use std::io::Write;

#[tokio::main]
async fn main() {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".into())
        .parse()
        .expect("ADDR must be host:port");
    let server = standin::StandIn::start_on(addr, Vec::new()).await;
    println!("standin listening on {}", server.base_url());
    let _ = std::io::stdout().flush();
    let _ = tokio::signal::ctrl_c().await;
}
