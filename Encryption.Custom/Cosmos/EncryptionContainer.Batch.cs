using Encryption.Custom.Cosmos.Batch;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos;

/// <summary>Transactional batches: bodies encrypted, patches rewritten, results decrypted (see <see cref="EncryptionTransactionalBatch"/>).</summary>
internal sealed partial class EncryptionContainer
{
    public override TransactionalBatch CreateTransactionalBatch(PartitionKey partitionKey) =>
        new EncryptionTransactionalBatch(this, partitionKey, _patchMaxAttempts);
}
