//! The provider function RPCs: GetFunctions and CallFunction.

use super::rpc::Ran;
use super::ProviderServer;
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::function::FunctionError;
use crate::proto::{self, decode, Unencoded};
use crate::server::guard::Subject;

impl ProviderServer {
    /// GetFunctions: every function's signature.
    pub(super) fn functions(
        &self,
        request: proto::get_functions::Request,
    ) -> proto::get_functions::Response {
        let ran = Ran::run("GetFunctions", Subject::Provider, &request, |_| {
            Some(proto::functions(&self.server.get_functions()))
        });
        let (functions, diagnostics) = ran.regardless();
        proto::get_functions::Response {
            functions: functions.unwrap_or_default(),
            diagnostics,
        }
    }

    /// CallFunction: the result, or the error (a failure of the call itself
    /// is one too).
    pub(super) fn call(
        &self,
        request: proto::call_function::Request,
    ) -> proto::call_function::Response {
        let ran = Ran::run(
            "CallFunction",
            Subject::Function(&request.name),
            &request,
            |_| Some(self.evaluate(&request)),
        );
        let result = match ran.result {
            Some(result) => result,
            None => Err(FunctionError {
                text: ran.details(),
                argument: None,
            }),
        };
        match result {
            Ok(result) => proto::call_function::Response {
                result: Some(result),
                error: None,
            },
            Err(error) => proto::call_function::Response {
                result: None,
                error: Some(proto::function_error(error)),
            },
        }
    }

    /// CallFunction's body: decodes the arguments (an undecodable one is
    /// blamed by position), calls the function, encodes the result.
    fn evaluate(
        &self,
        request: &proto::call_function::Request,
    ) -> Result<proto::DynamicValue, FunctionError> {
        let signature = self
            .server
            .function_signature(&request.name, request.arguments.len())?;
        let mut arguments = Vec::with_capacity(request.arguments.len());
        for (index, (argument, parameter)) in request
            .arguments
            .iter()
            .zip(&signature.parameters)
            .enumerate()
        {
            let mut diags = Diagnostics::new();
            let value = decode(
                Some(argument),
                &parameter.ty,
                "function argument",
                &mut diags,
            )
            .filter(|_| !diags.has_errors())
            .ok_or_else(|| {
                FunctionError::argument(index, format!("{} could not be decoded.", parameter.name))
            })?;
            arguments.push(value);
        }
        let result = self.server.call_function(&request.name, &arguments)?;
        drop(arguments);
        proto::encode_bounded(&result, &signature.returns).map_err(|unencoded| {
            let text = |d: Diagnostic| format!("{}: {}", d.summary, d.detail);
            match unencoded {
                // On the largest argument: what made the result so large.
                Unencoded::TooLarge(d) => {
                    FunctionError::argument(largest(&request.arguments), text(d))
                }
                Unencoded::Mistyped(d) => FunctionError {
                    text: text(d),
                    argument: None,
                },
            }
        })
    }
}

/// The position of the largest of `arguments` on the wire.
fn largest(arguments: &[proto::DynamicValue]) -> usize {
    (0..arguments.len())
        .max_by_key(|&i| arguments[i].msgpack.len() + arguments[i].json.len())
        .unwrap_or_default()
}
