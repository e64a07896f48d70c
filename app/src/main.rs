//! Trunk's entry point: mounts the dashboard in the browser.

fn main() {
    #[cfg(feature = "csr")]
    app::mount();
}
