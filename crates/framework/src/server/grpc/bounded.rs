//! The provider service behind its decoding limit. tonic refuses a request
//! over [`MAX_MESSAGE_SIZE`] with "found N bytes", the request's exact
//! size, and Terraform shows that text in its error: a request counts every
//! byte of the password it carries, so the size would tell its length to
//! anyone who knows the rest. [`Bounded`] names the limit instead.

use tonic::codegen::{http, BoxFuture, Context, Poll, Service};
use tonic::server::NamedService;
use tonic::{Code, Status};

use super::MAX_MESSAGE_SIZE;

/// How tonic's refusal of a request over the limit begins (the exact size
/// follows).
const TONIC_REFUSAL: &str = "Error, decoded message length too large";

/// What a request over the limit is answered instead.
fn refusal() -> String {
    format!(
        "The request takes more than the {MAX_MESSAGE_SIZE} bytes (64 MiB) the provider reads in one message, so nothing of it was read: give smaller values."
    )
}

/// A gRPC service whose answers to requests over [`MAX_MESSAGE_SIZE`] name
/// the limit, not the request's size; every other answer passes unchanged.
#[derive(Debug, Clone)]
pub struct Bounded<S>(pub(super) S);

impl<S: NamedService> NamedService for Bounded<S> {
    const NAME: &'static str = S::NAME;
}

impl<S, Request, B> Service<Request> for Bounded<S>
where
    S: Service<Request, Response = http::Response<B>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<S::Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let answer = self.0.call(request);
        Box::pin(async move {
            let mut response = answer.await?;
            let headers = response.headers_mut();
            let refused = Status::from_header_map(headers).is_some_and(|status| {
                status.code() == Code::OutOfRange && status.message().starts_with(TONIC_REFUSAL)
            });
            if refused {
                // Its text is ASCII that encodes: the headers always take it.
                let _ = Status::out_of_range(refusal()).add_header(headers);
            }
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::grpc::tests::Offers;
    use crate::server::grpc::ProviderServer;

    /// A request whose gRPC frame announces more than the limit is refused
    /// before it is read, and the refusal names the limit, the same
    /// whatever the request's size (tonic's own said "found N bytes").
    #[tokio::test]
    async fn a_request_over_the_limit_is_refused_naming_no_size() {
        let answer = |announced: u32| async move {
            let mut frame = vec![0u8];
            frame.extend_from_slice(&announced.to_be_bytes());
            let request = http::Request::builder()
                .method("POST")
                .uri("/tfplugin6.Provider/ValidateResourceConfig")
                .header("content-type", "application/grpc")
                .header("te", "trailers")
                // The five bytes of a frame's prefix (uncompressed, its
                // length), all below 0x80: a String body holds them.
                .body(String::from_utf8(frame).unwrap())
                .unwrap();
            let mut service = ProviderServer::new(&Offers::default()).into_service();
            let response = service.call(request).await.unwrap();
            let status = Status::from_header_map(response.headers()).expect("a status");
            (status.code(), status.message().to_owned())
        };
        let over = MAX_MESSAGE_SIZE as u32 + 1;
        assert_eq!(answer(over).await, (Code::OutOfRange, refusal()));
        assert_eq!(answer(over + 37).await, (Code::OutOfRange, refusal()));
    }
}
