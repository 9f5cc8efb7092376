namespace Encryption.Custom.Cosmos;

/// <summary>The kinds of item write that may encrypt their body.</summary>
internal enum ItemWrite
{
    Create,
    Replace,
    Upsert,
}
