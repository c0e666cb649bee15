// Package naming is how the gateway keeps one name per tool and per
// prompt across every replica that shares its store.
//
//   - Names come only from [toolname.Update] with the keys this replica
//     lists now: Update stores a table before it returns one that gives a
//     key a name the chain never held, so nothing is served before it is
//     stored, and since a key gets its chain's name back, every replica
//     gives a key the same name, whichever started or listed first.
//   - While the store cannot be reached, the last table stored keeps
//     routing, and tools that have no name yet wait, unlisted, for the
//     next round (retried with backoff).
//   - Another replica's table ([toolname.Watcher]) only starts a round:
//     Update writes only for keys of this replica's own that the chain has
//     not named yet.
//   - A called name that this replica does not serve is looked up once in
//     the store, and routed only to a tool this replica lists under the
//     very key the chain gave it.
//   - With -backup, the last table loaded from or stored in the store is
//     kept in a local file (a [toolname.FileStore] of its own), and a
//     store that holds less than it (emptied, another chain, an older
//     table) or a table that does not continue it (a name it gives
//     dropped, or given to another tool) is refused until it holds it
//     again. Meanwhile no call is routed through the store. The store
//     value starts from the backup's table ([toolname.Holder]) before
//     anything loads through it, so that it never holds a table it
//     refuses: otherwise a fork loaded first would become the table it
//     holds, and the real chain, put back, would be refused as a fork of
//     the fork until the gateway restarted.
//   - The prompts' names are a second chain, kept by this very code (a
//     [Chain] each), so that every rule above holds for them alike.
package naming
