use crate::apis::from_examples::Document;
pub(crate) const DOCUMENTS: &[Document] = &[];
