//! The route graph: route ids, wire names, servers and their modes, and the identity rules
//! that span modules (duplicate ids, shared App URIs, layout scopes).
