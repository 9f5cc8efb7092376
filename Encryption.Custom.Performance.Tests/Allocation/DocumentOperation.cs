namespace Encryption.Custom.Performance.Tests.Allocation;

public enum DocumentOperation
{
    Encrypt = 0,

    Decrypt = 1,
}
