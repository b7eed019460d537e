//! How a tool reaches its body: a free fn called by name, or a method of a `#[phi_tools]` impl
//! called on the receiver the tool holds. Everything else about a tool (metadata, parameters,
//! output) is the same for both, so both front ends feed one generator; this is the one place
//! where they differ.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Generics, Ident, Type};

/// The body's owner.
pub(crate) enum Callee {
    /// `#[phi_tool] fn ..`: the tool type is a unit struct and calls the fn by name.
    Fn,
    /// `#[tool] async fn ..(&self, ..)` in a `#[phi_tools]` impl: the tool type holds the
    /// receiver in an `Arc` (its field `0`) and calls the method on it.
    Method(Box<MethodCallee>),
}

/// A method of a `#[phi_tools]` impl.
pub(crate) struct MethodCallee {
    /// The impl's self type, as written (`Store<B>`).
    pub(crate) self_ty: Type,
    /// The impl's generics: the tool type and its impls take the same ones.
    pub(crate) generics: Generics,
    /// How the method takes `self`.
    pub(crate) receiver: Receiver,
    /// `Store::lookup`, for documentation.
    pub(crate) label: String,
}

/// The receivers a tool method may take.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Receiver {
    /// `&self`: borrowed from the tool's `Arc` for the call.
    Ref,
    /// `self: Arc<Self>`: a clone of the tool's `Arc`, which the method may keep.
    Arc,
}

impl Callee {
    /// The generics of the tool type (none for a fn).
    pub(crate) fn generics(&self) -> Generics {
        match self {
            Callee::Fn => Generics::default(),
            Callee::Method(method) => method.generics.clone(),
        }
    }

    /// What the tool type's doc comment says it was generated from.
    pub(crate) fn source(&self, ident: &Ident) -> String {
        match self {
            Callee::Fn => format!(
                "`#[phi_tool]` from the fn `{}`",
                crate::naming::unraw(ident)
            ),
            Callee::Method(method) => {
                format!("`#[phi_tools]` from the method `{}`", method.label)
            }
        }
    }

    /// The call of the body with `args`, in the tool's `call_typed` (where `self` is the tool).
    pub(crate) fn call(&self, ident: &Ident, args: &[TokenStream]) -> TokenStream {
        match self {
            Callee::Fn => quote!(#ident(#(#args),*)),
            Callee::Method(method) => {
                let self_ty = &method.self_ty;
                let receiver = match method.receiver {
                    Receiver::Ref => quote!(&*self.0),
                    Receiver::Arc => quote!(::std::sync::Arc::clone(&self.0)),
                };
                quote!(<#self_ty>::#ident(#receiver, #(#args),*))
            }
        }
    }

    /// Whether `ty` can be named outside the impl (it mentions none of the impl's generic
    /// parameters), so that a check on it can stand alone in a `const`.
    pub(crate) fn is_concrete(&self, ty: &Type) -> bool {
        let Callee::Method(method) = self else {
            return true;
        };
        let params: Vec<String> = method
            .generics
            .params
            .iter()
            .filter_map(|param| match param {
                syn::GenericParam::Type(ty) => Some(ty.ident.to_string()),
                syn::GenericParam::Const(c) => Some(c.ident.to_string()),
                syn::GenericParam::Lifetime(_) => None,
            })
            .collect();
        !mentions(quote!(#ty), &|ident| {
            params.iter().any(|param| ident == param)
        })
    }
}

/// Whether any identifier in `tokens` (groups included) satisfies `hit`.
pub(crate) fn mentions(tokens: TokenStream, hit: &dyn Fn(&Ident) -> bool) -> bool {
    tokens.into_iter().any(|token| match token {
        proc_macro2::TokenTree::Ident(ident) => hit(&ident),
        proc_macro2::TokenTree::Group(group) => mentions(group.stream(), hit),
        _ => false,
    })
}
