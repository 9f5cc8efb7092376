using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos;

internal sealed partial class EncryptionContainer
{
    public override TransactionalBatch CreateTransactionalBatch(PartitionKey partitionKey) => throw new NotImplementedException();
}
