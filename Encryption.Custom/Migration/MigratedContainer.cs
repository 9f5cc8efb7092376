using Encryption.Custom.Cosmos.Processing;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Migration;

/// <summary>
/// The one container an in-place migration reads and writes back, with what it takes to do so: the container, its
/// partition key paths (read by the job's preparation, to address each document), the crypto that reads and writes its
/// bodies, and the target state the documents are brought to. The in-place counterpart of a copy's
/// <see cref="Copy.CopyEnds"/>: both ends are this container, so the four travel together to the
/// <see cref="DocumentMigrator"/>.
/// </summary>
/// <param name="Container">The raw container.</param>
/// <param name="PartitionKeyPaths">The container's partition key paths.</param>
/// <param name="Crypto">The job's crypto (its processor kind is the job's <see cref="EncryptionMigrationOptions.JsonProcessor"/>).</param>
/// <param name="Target">The target state (bound to the container when it binds).</param>
internal sealed record MigratedContainer(Container Container, IReadOnlyList<string> PartitionKeyPaths, BodyCrypto Crypto, MigrationTarget Target);
