global using System.Net;
global using Encryption.Custom.Emulator.Tests.Infrastructure;
global using Microsoft.Azure.Cosmos;
global using Xunit;
