// Package redisstore keeps a [toolname] chain in Redis, so that every
// replica of a gateway serves the same name for the same tool: a
// [toolname.Store] and [toolname.Watcher] on
// [github.com/redis/go-redis/v9].
//
//	store := redisstore.New(redis.NewClient(opts), "mcpid")
//	names, rev, err := toolname.Update(ctx, store, toolname.Portable, keys)
//
// # Layout
//
// A chain is one Redis hash, at the key "mcpid:toolname:" followed by the
// chain's name, with two fields: "table", the table's JSON as
// [toolname.Table.MarshalJSON] writes it, and "rev", its revision. A
// revision is the table's generation and 128 random bits
// ("g42-K7ZQ2M4XJ3H5RN6TVBGWCYDPEA"): unique to one write, so that a
// chain that was emptied and stored again never repeats a revision that a
// replica may still hold. Both [Store.Load] and [Store.Swap] are Lua
// scripts, so each runs atomically on the server: Swap compares the
// stored revision with the one it was given and writes the table and a
// new revision only when they are equal (an empty revision: only when the
// key does not exist), then publishes the new revision on the channel of
// the same name as the key, which [Store.Watch] subscribes to.
//
// # Safety
//
// A Store value keeps the rules that every toolname store keeps:
//
//   - it remembers the chain id and the highest generation it has loaded
//     or stored, and refuses (an error matching [toolname.ErrRollback]) a
//     load that finds another chain, an older table, or no table at all:
//     a Redis that restarted without its data, a restored backup, a
//     flushed key. It keeps refusing until the chain is right again;
//   - it refuses the same way a table that does not continue the one it
//     holds ([toolname.Table.Continues]: a name dropped, or given to
//     another tool), whatever its generation: a fork that a replica
//     started after a restore wrote, or a hash edited by hand. Whoever can
//     write the key can route calls: trust Redis like the gateway's own
//     disk. A replica that starts has no table to compare with: a gateway
//     keeps one in a backup file (mcpid-gateway's -backup);
//   - a key that holds anything but a table (another type, a hash
//     without its fields, JSON that does not decode) is an error matching
//     [toolname.ErrInvalidTable], never an empty chain, and the store
//     leaves it as it is: Swap refuses to write over it;
//   - it keeps the decoded table of the revision it saw last: a Load
//     whose revision did not change transfers and decodes nothing, one
//     round trip that compares revisions on the server.
//
// Every write stores the whole table: a chain of 100,000 retired names is
// several megabytes of JSON, sent to Redis by each Swap and read by each
// replica once per new revision.
//
// # Outages
//
// While Redis cannot be reached, Load and Swap return the client's error
// once its retries are spent (with go-redis's defaults, about 1.7 s;
// the client's MaxRetries and DialerRetries set it), and a caller of
// [toolname.Update] serves nothing new meanwhile. A Watch keeps its
// channel open through the outage and sends the chain's revision when it
// has subscribed again.
//
// # Persistence
//
// Redis must keep what it acknowledged: a chain it forgets lets nothing
// wrong be served (the replicas refuse it, as above), but leaves them
// unable to give any new tool a name until an operator seeds the chain
// again ([toolname.Seed], from a replica's backup). So run Redis with the
// append-only file (appendonly yes; appendfsync always loses nothing,
// everysec up to a second of writes), or at least RDB snapshots (which
// lose the writes since the last one), and with a maxmemory-policy that
// never evicts the key (noeviction, or a volatile-* policy: the key has
// no expiry). A replica that Redis fails over to may lack the last
// writes of its primary (replication is asynchronous): the gateways then
// refuse it the same way.
package redisstore
