// Package pgstore keeps a [toolname] chain in PostgreSQL, so that every
// replica of a gateway serves the same name for the same tool: a
// [toolname.Store] and [toolname.Watcher] on [github.com/jackc/pgx/v5].
//
//	store, err := pgstore.New(ctx, pool, "mcpid")
//	names, rev, err := toolname.Update(ctx, store, toolname.Portable, keys)
//
// # Layout
//
// Every chain is one row of the table mcpid_toolname_chains (in the first
// schema of the connection's search_path), which [New] creates when it is
// missing:
//
//	chain       text primary key  the chain's name, as given to New
//	rev         text not null     the revision of the table stored
//	generation  bigint not null   the table's generation, for people who read the row
//	names       bytea not null    the table's JSON, as [toolname.Table.MarshalJSON] writes it
//	updated_at  timestamptz       when it was stored
//
// A revision is the table's generation and 128 random bits
// ("g42-K7ZQ2M4XJ3H5RN6TVBGWCYDPEA"): unique to one write, so that a chain
// that was emptied and stored again never repeats a revision that a
// replica may still hold. [Store.Swap] is one statement: an UPDATE ...
// WHERE chain = $1 AND rev = $2 (for the first table, an INSERT ... ON
// CONFLICT DO NOTHING), which PostgreSQL's row lock makes a
// compare-and-swap at any isolation level, joined with a pg_notify of the
// new revision that PostgreSQL delivers when, and only when, the write
// commits. The notification channel is "mcpid_toolname_" and 32 hex
// digits of the chain name's SHA-256, since a channel is an identifier of
// at most 63 bytes; [Store.Watch] listens on it. Under
// default_transaction_isolation = serializable, a statement that fails
// with a serialization failure (40001) or a deadlock (40P01) is run
// again.
//
// # Safety
//
// A Store value keeps the rules that every toolname store keeps:
//
//   - it remembers the chain id and the highest generation it has loaded
//     or stored, and refuses (an error matching [toolname.ErrRollback]) a
//     load that finds another chain, an older table, or no row at all: a
//     restored backup, a deleted row, another database. It keeps
//     refusing until the chain is right again;
//   - it refuses the same way a table that does not continue the one it
//     holds ([toolname.Table.Continues]: a name dropped, or given to
//     another tool), whatever its generation: a fork that a replica
//     started after a restore wrote, or a row edited by hand. Whoever can
//     write the row can route calls: trust the database like the
//     gateway's own disk. A replica that starts has no table to compare
//     with: a gateway keeps one in a backup file (mcpid-gateway's
//     -backup);
//   - a row whose names do not decode as a table is an error matching
//     [toolname.ErrInvalidTable], never an empty chain, and the store
//     leaves it as it is (no Load returns its revision, and Swap writes
//     only over the revision it is given);
//   - it keeps the decoded table of the revision it saw last: a Load
//     whose revision did not change transfers and decodes nothing, one
//     query that compares revisions on the server.
//
// Every write stores the whole table: a chain of 100,000 retired names is
// several megabytes of JSON, sent by each Swap and read by each replica
// once per new revision. The row is updated in place, so autovacuum
// reclaims the old versions; nothing else grows.
//
// # Persistence
//
// PostgreSQL keeps what it committed, with its defaults (fsync on,
// synchronous_commit on). A server run with synchronous_commit = off, or
// an asynchronous standby that is promoted, may lose the last writes: the
// replicas then refuse the older table as above, and the chain needs an
// operator ([toolname.Seed], from a replica's backup).
//
// # Outages
//
// While PostgreSQL cannot be reached, Load and Swap return the pool's
// error, and a caller of [toolname.Update] serves nothing new meanwhile.
// A Watch keeps its channel open through the outage, listens again on a
// new connection as soon as one opens, and then sends the chain's
// revision.
//
// # Connections
//
// A Store uses its pool for Load and Swap, one connection at a time, and
// each [Store.Watch] takes one connection out of the pool (it is never
// given back: a LISTEN would follow it), and closes it when its context
// ends.
package pgstore
