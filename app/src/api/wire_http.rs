//! How the dashboard's server functions travel: [`WireHttp`], a
//! `server_fn` protocol with `server_fn`'s own `Http<Json, Json>` wire (a
//! `POST` of the arguments as JSON, the answer as JSON, an error status with
//! an [`ApiError`] body).
//!
//! The server runs it as `Http` does. The browser sends every call through
//! one exchange ([`exchange`]: request, response, status, the body parsed
//! once into a [`Value`]), boxed, so its code is compiled once for all
//! calls rather than once per call's argument and answer types; only the
//! arguments' JSON and the answer's [`Answer::read`] are per call.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use serde::Serialize;
use serde_json::Value;
use server_fn::client::Client;
use server_fn::codec::{Encoding, FromReq, IntoRes, Json};
use server_fn::error::{FromServerFnError, ServerFnErrorErr};
use server_fn::request::ClientReq;
use server_fn::response::ClientRes;
use server_fn::server::Server;
use server_fn::{Bytes, ContentType, Protocol};

use super::answers::{Answer, Fields, Wrong};
use super::ApiError;

/// The dashboard's server-function protocol (see the module's docs).
pub struct WireHttp;

impl<I, O, C, S> Protocol<I, O, C, S, ApiError> for WireHttp
where
    I: Serialize + FromReq<Json, S::Request, ApiError> + Send,
    O: Answer + IntoRes<Json, S::Response, ApiError> + Send,
    C: Client<ApiError> + 'static,
    S: Server<ApiError>,
{
    const METHOD: http::Method = <Json as Encoding>::METHOD;

    async fn run_server<F, Fut>(request: S::Request, server_fn: F) -> Result<S::Response, ApiError>
    where
        F: Fn(I) -> Fut + Send,
        Fut: Future<Output = Result<O, ApiError>> + Send,
    {
        let input = I::from_req(request).await?;
        let output = server_fn(input).await?;
        O::into_res(output).await
    }

    fn run_client(path: &str, input: I) -> impl Future<Output = Result<O, ApiError>> + Send {
        let body = serde_json::to_vec(&input).map_err(|error| {
            ApiError::from_server_fn_error(ServerFnErrorErr::Serialization(error.to_string()))
        });
        Answering {
            exchange: exchange::<C>(path, body),
            answer: PhantomData,
        }
    }
}

/// One call's exchange: its answer as JSON, or why there is none.
type Exchange = Pin<Box<dyn Future<Output = Result<Value, ApiError>> + Send>>;

/// Sends one call and reads its answer's JSON; compiled once for every
/// call (one client type).
fn exchange<C: Client<ApiError> + 'static>(
    path: &str,
    body: Result<Vec<u8>, ApiError>,
) -> Exchange {
    const JSON: &str = <Json as ContentType>::CONTENT_TYPE;
    let request =
        body.and_then(|body| C::Request::try_new_post_bytes(path, JSON, JSON, Bytes::from(body)));
    Box::pin(async move {
        let response = C::send(request?).await?;
        let status = response.status();
        let location = response.location();
        let redirected = response.has_redirect();
        let bytes = response.try_into_bytes().await?;
        let json = serde_json::from_slice::<Value>(&bytes);
        if (400..=599).contains(&status) {
            return Err(json
                .map_err(|error| error.to_string())
                .and_then(|json| read_error(&json).map_err(|wrong| wrong.to_string()))
                .unwrap_or_else(unreadable));
        }
        let json = json.map_err(|error| unreadable(error.to_string()))?;
        if (300..=399).contains(&status) || redirected {
            server_fn::redirect::call_redirect_hook(&location);
        }
        Ok(json)
    })
}

/// An error body, as `ApiError`'s derive reads it.
fn read_error(json: &Value) -> Result<ApiError, Wrong> {
    let fields = Fields::of(json)?;
    Ok(ApiError {
        status: fields.get("status")?,
        message: fields.get("error")?,
    })
}

/// An answer that cannot be read, as `server_fn` reports one.
fn unreadable(why: String) -> ApiError {
    ApiError::from_server_fn_error(ServerFnErrorErr::Deserialization(why))
}

/// A call under way: the shared exchange, then its answer read as `O`.
struct Answering<O> {
    exchange: Exchange,
    answer: PhantomData<fn() -> O>,
}

impl<O: Answer> Future for Answering<O> {
    type Output = Result<O, ApiError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.exchange
            .as_mut()
            .poll(cx)
            .map(|json| O::read(&json?).map_err(|wrong| unreadable(wrong.to_string())))
    }
}
