namespace Encryption.Custom.Cosmos.Batch;

/// <summary>The operations a transactional batch can hold.</summary>
internal enum BatchOperationKind
{
    Create,
    Read,
    Replace,
    Upsert,
    Delete,
    Patch,
}
